package storage

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"sort"

	"github.com/honmaster/masterserver/host/failure/detail"
)

// ErrTargetNotEmpty refuses a copy into a database that holds records (a
// detail.Error of this kind counts them).
var ErrTargetNotEmpty = errors.New("storage: the target database is not empty")

// ErrCopyMismatch means the target does not hold what the source holds
// after a copy (the source changed meanwhile, or a write was lost); the
// detail.Error of this kind says which key family differs, and how.
var ErrCopyMismatch = errors.New("storage: the copy differs from the source")

// copyChunk bounds one commit of a copy: records and bytes.
const (
	copyChunkRecords = 1024
	copyChunkBytes   = 8 << 20
)

// KeyspaceSum is the record count and checksum of one key family: a
// storage prefix ("a/", "s/") or one declared keyspace ("x/guides.marks/",
// "i/reports.queue/", "pluginstate/guides/").
type KeyspaceSum struct {
	Prefix string
	Count  int
	Sum    [sha256.Size]byte // over every key and value, in key order
}

// CopyOptions tunes Copy.
type CopyOptions struct {
	// Overwrite deletes every record of a non-empty target first (else
	// Copy refuses it with ErrTargetNotEmpty).
	Overwrite bool
	// Progress, if set, is called after each chunk with the records copied.
	Progress func(records int)
}

// Copy copies every record of src into dst, raw (keys and values as they
// are: both are at SchemaVersion once open), in chunks, then checks both
// hold the same records: the count and checksum of each key family must
// match, else ErrCopyMismatch. It returns the families' sums. Both
// databases must be closed to every other writer (a stopped server): a
// record written to src meanwhile makes the check fail. A target holding
// only its schema version counts as empty.
func Copy(src, dst *DB, o CopyOptions) ([]KeyspaceSum, error) {
	var existing [][]byte
	err := dst.scan(nil, func(k, _ []byte) error {
		if !bytes.Equal(k, metaKey(metaSchema)) {
			existing = append(existing, append([]byte(nil), k...))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("storage: read the target: %w", err)
	}
	if len(existing) > 0 && !o.Overwrite {
		return nil, detail.New(ErrTargetNotEmpty, "%d records", len(existing))
	}
	for len(existing) > 0 {
		n := min(len(existing), copyChunkRecords)
		b := dst.NewBatch()
		for _, k := range existing[:n] {
			b.del(k)
		}
		if err := dst.Commit(b); err != nil {
			return nil, fmt.Errorf("storage: clear the target: %w", err)
		}
		existing = existing[n:]
	}
	copied, size := 0, 0
	b := dst.NewBatch()
	flush := func() error {
		if err := dst.Commit(b); err != nil {
			return err
		}
		b, size = dst.NewBatch(), 0
		if o.Progress != nil {
			o.Progress(copied)
		}
		return nil
	}
	err = src.scan(nil, func(k, v []byte) error {
		b.set(k, v, nil) // both engines copy what they are given
		copied++
		if size += len(k) + len(v); b.eb.count() >= copyChunkRecords || size >= copyChunkBytes {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	} else {
		b.Discard()
	}
	if err != nil {
		return nil, fmt.Errorf("storage: copy: %w", err)
	}
	want, err := Sums(src)
	if err != nil {
		return nil, fmt.Errorf("storage: checksum the source: %w", err)
	}
	got, err := Sums(dst)
	if err != nil {
		return nil, fmt.Errorf("storage: checksum the target: %w", err)
	}
	if d := diffSums(want, got); d != "" {
		return want, detail.New(ErrCopyMismatch, "%s", d)
	}
	return want, nil
}

// Sums returns the record count and checksum of every key family of db,
// in prefix order.
func Sums(db *DB) ([]KeyspaceSum, error) {
	type acc struct {
		n int
		h hash.Hash
	}
	fams := map[string]*acc{}
	var lenBuf [binary.MaxVarintLen64]byte
	err := db.scan(nil, func(k, v []byte) error {
		f := keyFamily(k)
		a := fams[f]
		if a == nil {
			a = &acc{h: sha256.New()}
			fams[f] = a
		}
		a.n++
		a.h.Write(lenBuf[:binary.PutUvarint(lenBuf[:], uint64(len(k)))])
		a.h.Write(k)
		a.h.Write(lenBuf[:binary.PutUvarint(lenBuf[:], uint64(len(v)))])
		a.h.Write(v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]KeyspaceSum, 0, len(fams))
	for f, a := range fams {
		s := KeyspaceSum{Prefix: f, Count: a.n}
		a.h.Sum(s.Sum[:0])
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Prefix < out[j].Prefix })
	return out, nil
}

// keyFamily is the family a key belongs to: its keyspace's prefix for the
// named keyspaces (x/, g/, i/, pluginstate/, n/), else its first "<c>/".
func keyFamily(k []byte) string {
	for _, p := range []string{prefixAcctKS, prefixGlobKS, prefixIndex, prefixPluginState, prefixCount} {
		if rest, ok := bytes.CutPrefix(k, []byte(p)); ok {
			if i := bytes.IndexByte(rest, '/'); i >= 0 {
				return p + string(rest[:i+1])
			}
			return p
		}
	}
	if i := bytes.IndexByte(k, '/'); i >= 0 && i < 16 {
		return string(k[:i+1])
	}
	return fmt.Sprintf("%q", k[:min(len(k), 2)])
}

func diffSums(want, got []KeyspaceSum) string {
	g := map[string]KeyspaceSum{}
	for _, s := range got {
		g[s.Prefix] = s
	}
	for _, w := range want {
		s, ok := g[w.Prefix]
		switch {
		case !ok:
			return fmt.Sprintf("%s: %d records in the source, none in the target", w.Prefix, w.Count)
		case s.Count != w.Count:
			return fmt.Sprintf("%s: %d records in the source, %d in the target", w.Prefix, w.Count, s.Count)
		case s.Sum != w.Sum:
			return fmt.Sprintf("%s: %d records on both sides, different checksums", w.Prefix, w.Count)
		}
		delete(g, w.Prefix)
	}
	for p, s := range g {
		return fmt.Sprintf("%s: %d records in the target, none in the source", p, s.Count)
	}
	return ""
}
