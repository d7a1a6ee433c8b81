// Package storage provides the host's single durable store: one Pebble
// database behind a small typed API of records (accounts, sessions, cloud
// settings) and batches that commit atomically and synced.
//
// Reads may come from anywhere. Writes go through a Batch committed with
// DB.Commit; by the project's rules only the actors call Commit, so that each
// account has exactly one writer.
package storage

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

var (
	// ErrNotFound is returned when a record does not exist.
	ErrNotFound = errors.New("storage: not found")
	// ErrCorrupt marks a stored value that cannot be decoded.
	ErrCorrupt = errors.New("storage: corrupt value")
	// ErrClosed is returned by a DB after Close.
	ErrClosed = errors.New("storage: closed")
)

// Options configures Open. The zero value opens an on-disk database.
type Options struct {
	// InMemory keeps everything in memory (tests and benchmarks). Commits are
	// still "synced", which costs nothing there.
	InMemory bool
	// Logger receives Pebble's own messages at debug level; nil discards them.
	Logger *slog.Logger
}

// DB is the typed view of the Pebble database.
type DB struct {
	pdb      *pebble.DB
	onCommit atomic.Pointer[func(CommitInfo)] // metrics, see SetCommitObserver
}

// Open opens (creating if needed) the database in dir.
func Open(dir string, opts *Options) (*DB, error) {
	if opts == nil {
		opts = &Options{}
	}
	po := &pebble.Options{Logger: pebbleLogger{opts.Logger}}
	if opts.InMemory {
		po.FS = vfs.NewMem()
	}
	pdb, err := pebble.Open(dir, po)
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", dir, err)
	}
	return &DB{pdb: pdb}, nil
}

// Close flushes nothing extra (every commit is already synced) and releases
// the directory lock.
func (db *DB) Close() error { return db.pdb.Close() }

// get copies the value of key, since Pebble's slice is only valid until the
// closer runs.
func (db *DB) get(key []byte) ([]byte, error) {
	v, closer, err := db.pdb.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), v...)
	return out, closer.Close()
}

// Account reads one account record.
func (db *DB) Account(id AccountID) (*Account, error) {
	b, err := db.get(accountKey(id))
	if err != nil {
		return nil, fmt.Errorf("storage: account %d: %w", id, err)
	}
	var a Account
	if err := decodeJSON(b, &a); err != nil {
		return nil, fmt.Errorf("storage: account %d: %w", id, err)
	}
	return &a, nil
}

// LoginID resolves a login, matched exactly (case-sensitive), to its account.
func (db *DB) LoginID(login string) (AccountID, error) {
	b, err := db.get(loginKey(login))
	if err != nil {
		return 0, fmt.Errorf("storage: login %q: %w", login, err)
	}
	return decodeID(b)
}

// SubAccounts lists the sub-accounts of a main account in id (creation) order.
func (db *DB) SubAccounts(super AccountID) ([]AccountID, error) {
	var ids []AccountID
	p := subPrefix(super)
	err := db.scan(p, func(k, _ []byte) error {
		id, err := decodeID(k[len(p):])
		if err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	})
	return ids, err
}

// Session reads a session by its cookie, expired or not.
func (db *DB) Session(cookie string) (*Session, error) {
	b, err := db.get(sessionKey(cookie))
	if err != nil {
		return nil, fmt.Errorf("storage: session: %w", err)
	}
	var s Session
	if err := decodeJSON(b, &s); err != nil {
		return nil, fmt.Errorf("storage: session: %w", err)
	}
	return &s, nil
}

// Cloud reads the settings archive of an account's bucket. With withData
// false only the metadata is decoded (status requests).
func (db *DB) Cloud(id AccountID, bucket string, withData bool) (*CloudObject, error) {
	b, err := db.get(cloudKey(id, bucket))
	if err != nil {
		return nil, fmt.Errorf("storage: cloud %d/%q: %w", id, bucket, err)
	}
	return decodeCloud(b, withData)
}

// Meta reads a metadata value by name.
func (db *DB) Meta(name string) ([]byte, error) {
	b, err := db.get(metaKey(name))
	if err != nil {
		return nil, fmt.Errorf("storage: meta %q: %w", name, err)
	}
	return b, nil
}

// Catalog reads the Plinko catalog; ErrNotFound when none was imported.
func (db *DB) Catalog() (*Catalog, error) {
	b, err := db.get(metaKey(metaCatalog))
	if err != nil {
		return nil, fmt.Errorf("storage: catalog: %w", err)
	}
	var c Catalog
	if err := decodeJSON(b, &c); err != nil {
		return nil, fmt.Errorf("storage: catalog: %w", err)
	}
	return &c, nil
}

// NextAccountID returns the id the next created account gets.
func (db *DB) NextAccountID() (AccountID, error) {
	b, err := db.get(metaKey(metaNextAccountID))
	if errors.Is(err, ErrNotFound) {
		return FirstAccountID, nil
	}
	if err != nil {
		return 0, err
	}
	return decodeID(b)
}

// FirstAccountID is the id of the first account of a new database.
const FirstAccountID AccountID = 1

// EachAccount calls fn for every account in id order until fn errs.
func (db *DB) EachAccount(fn func(*Account) error) error {
	return db.scan([]byte(prefixAccount), func(_, v []byte) error {
		var a Account
		if err := decodeJSON(v, &a); err != nil {
			return err
		}
		return fn(&a)
	})
}

// EachSession calls fn for every stored session until fn errs.
func (db *DB) EachSession(fn func(*Session) error) error {
	return db.scan([]byte(prefixSession), func(_, v []byte) error {
		var s Session
		if err := decodeJSON(v, &s); err != nil {
			return err
		}
		return fn(&s)
	})
}

// scan calls fn with every key and value under prefix p. The slices are only
// valid during the call.
func (db *DB) scan(p []byte, fn func(k, v []byte) error) error {
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return err
		}
		if err := fn(it.Key(), v); err != nil {
			it.Close()
			return err
		}
	}
	return it.Close()
}

// Commit applies the batch atomically and syncs it to disk before returning:
// a reply sent after Commit returns is never lost, even on kill -9. The batch
// cannot be used afterwards.
func (db *DB) Commit(b *Batch) error {
	if b.err != nil {
		b.pb.Close()
		return b.err
	}
	start, ops, size := time.Now(), int(b.pb.Count()), b.pb.Len()
	err := db.pdb.Apply(b.pb, pebble.Sync)
	db.observeCommit(ops, size, start, err)
	b.pb.Close()
	if err != nil {
		return fmt.Errorf("storage: commit: %w", err)
	}
	return nil
}

// Checkpoint writes a consistent copy of the database into dir, which must
// not exist. It is safe while the database is being written.
func (db *DB) Checkpoint(dir string) error {
	if err := db.pdb.Checkpoint(dir, pebble.WithFlushedWAL()); err != nil {
		return fmt.Errorf("storage: checkpoint to %s: %w", dir, err)
	}
	return nil
}

func unixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// pebbleLogger sends Pebble's messages to slog at debug level (errors at
// error level) instead of stderr.
type pebbleLogger struct{ l *slog.Logger }

func (p pebbleLogger) Infof(format string, args ...any) {
	if p.l != nil {
		p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
	}
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	if p.l != nil {
		p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
	}
}

func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if p.l != nil {
		p.l.Error(msg, "component", "pebble")
	}
	panic(msg)
}

var _ io.Closer = (*DB)(nil)
