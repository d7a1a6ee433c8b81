package cli

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SumsFile is the file of a backup that lists the SHA-256 of every other
// file in it, in sha256sum's format ("HEX  PATH", PATH relative to the
// backup, with slashes), so that `sha256sum -c SHA256SUMS` in the backup
// checks it too. backup writes it last, so a backup without it is
// incomplete (or was written by an earlier version); restore checks every
// file against it before anything changes.
//
// Opening a database is not enough to find damage: Pebble reads a
// write-ahead log that ends in a damaged record as a log that ends there
// (the tail of a log a crash cut short), so a small database, whose
// records are all in its log, opened as fewer accounts, or none, and was
// restored as such.
const SumsFile = "SHA256SUMS"

// writeSums writes dir's SumsFile, covering every regular file below dir,
// and syncs it.
func writeSums(dir string) error {
	var b bytes.Buffer
	var rels []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if rel != SumsFile {
			rels = append(rels, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(rels)
	for _, rel := range rels {
		sum, err := fileSum(filepath.Join(dir, rel))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum), filepath.ToSlash(rel))
	}
	tmp := filepath.Join(dir, SumsFile+".tmp")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, SumsFile)); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir makes the names in dir durable (a rename, a new file): a var
// for tests.
var syncDir = func(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func fileSum(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// backupSums are the checksums of a backup's SumsFile, by path relative to
// the backup (slashes).
type backupSums map[string][]byte

// errNoSums: the backup has no SumsFile.
var errNoSums = errors.New("the backup has no " + SumsFile)

// readSums reads the SumsFile of the backup in dir: errNoSums when it has
// none; an error saying what is wrong when it cannot be read as one.
func readSums(dir string) (backupSums, error) {
	f, err := os.Open(filepath.Join(dir, SumsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoSums
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sums := backupSums{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		sum, rel, ok := strings.Cut(sc.Text(), "  ")
		b, err := hex.DecodeString(sum)
		if !ok || err != nil || len(b) != sha256.Size || rel == "" || !filepath.IsLocal(filepath.FromSlash(rel)) {
			return nil, fmt.Errorf("%s line %d is not \"SHA-256  PATH\"", SumsFile, n)
		}
		sums[rel] = b
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(sums) == 0 {
		return nil, fmt.Errorf("%s lists no file", SumsFile)
	}
	return sums, nil
}

// check checks the files the sums list under prefix ("db/": the
// database's files) against the files in dir, where they were copied:
// each must be there with its checksum. The first that is not is the
// error, naming the file as the backup has it.
func (s backupSums) check(prefix, dir string) error {
	var rels []string
	for rel := range s {
		if strings.HasPrefix(rel, prefix) {
			rels = append(rels, rel)
		}
	}
	if len(rels) == 0 {
		return fmt.Errorf("%s lists none of the database's files", SumsFile)
	}
	slices.Sort(rels)
	for _, rel := range rels {
		got, err := fileSum(filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(rel, prefix))))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s is missing", rel)
		}
		if err != nil {
			return fmt.Errorf("%s cannot be read: %v", rel, unwrapPath(err))
		}
		if !bytes.Equal(got, s[rel]) {
			return fmt.Errorf("%s is not the file the backup wrote (its SHA-256 differs from %s's)", rel, SumsFile)
		}
	}
	return nil
}

// checkBytes checks data, the content of the backup's file rel, when the
// sums list it.
func (s backupSums) checkBytes(rel string, data []byte) error {
	want, ok := s[rel]
	if !ok {
		return nil
	}
	if got := sha256.Sum256(data); !bytes.Equal(got[:], want) {
		return fmt.Errorf("%s is not the file the backup wrote (its SHA-256 differs from %s's)", rel, SumsFile)
	}
	return nil
}
