// Package storage is the host's single durable store: an ordered key/value
// database behind a small typed API. The database is Pebble in a directory
// (Open, the default) or one table in PostgreSQL (OpenPostgres; see
// postgres.go and docs/postgres.md); both sit behind one internal engine
// interface (engine.go), and no engine type appears in the API.
//
// # Records
//
// An account is several small records (see keys.go), each a protobuf
// message (storage/proto/records.proto) behind a format byte: its profile
// and balances, its lists, its SRP credentials, and one record per owned
// upgrade, so that a change writes only what it altered and a grant costs
// the same whatever the account owns. Sessions are stored under the SHA-256 of their cookie.
//
// # Keyspaces
//
// Areas declare their own records as typed keyspaces, once, at package
// level:
//
//	// per account: a guide's flags and vote, keyed (account, guide id)
//	var guideMarks = storage.NewAccountKeyspace("guides.marks", storage.Proto[*guidespb.Marks]())
//	// global: the guides themselves, keyed by guide id
//	var guideContent = storage.NewGlobalKeyspace("guides.content", storage.Proto[*guidespb.Guide]())
//
// A per-account record is written only inside the account's actor, through
// the Tx a Change gets (actors.Tx implements AccountWriter):
//
//	func (c *vote) Apply(tx *actors.Tx) (any, error) {
//		m, err := guideMarks.Get(tx.DB(), tx.ID(), c.guide) // ErrNotFound when none
//		...
//		return nil, guideMarks.Put(tx, c.guide, m)
//	}
//
// A global record is written by the single global writer (the registry
// actor), through actors.System.UpdateGlobal, whose GlobalTx implements
// GlobalWriter:
//
//	sys.UpdateGlobal(ctx, func(g *actors.GlobalTx) (any, error) {
//		return nil, guideContent.Put(g, "42", guide)
//	})
//
// Reads come from anywhere, and iterate by key prefix in key order:
//
//	guideContent.Each(db, "", func(key string, g *guidespb.Guide) error { ... })
//	guideMarks.Each(db, accountID, "", func(guide string, m *guidespb.Marks) error { ... })
//
// Keys are strings; to get numeric order, encode numbers big-endian or
// zero-padded (KeyUint64 helps).
//
// # Writes
//
// Writes go through a Batch committed with DB.Commit, atomically and synced;
// by the project's rules only package actors creates and commits batches,
// so that each account has exactly one writer. In cluster mode, where
// several processes share one PostgreSQL database, a batch may carry
// conditions checked by its commit (conditions.go): the owner epoch of the
// account's activation (owner.go), keys inserted only if absent, values
// moved by compare-and-set (the id and global sequences, global.go).
package storage

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/honmaster/masterserver/storage/internal/pb"
)

var (
	// ErrNotFound is returned when a record does not exist.
	ErrNotFound = errors.New("storage: not found")
	// ErrCorrupt marks a stored value that cannot be decoded.
	ErrCorrupt = errors.New("storage: corrupt value")
	// ErrClosed is returned by a DB after Close.
	ErrClosed = errors.New("storage: closed")
	// ErrNewerSchema refuses a data directory written by a newer version.
	ErrNewerSchema = errors.New("storage: data directory written by a newer version")
)

// Options configures Open. The zero value opens an on-disk database with
// the defaults below.
type Options struct {
	// InMemory keeps everything in memory (tests and benchmarks). Commits are
	// still "synced", which costs nothing there.
	InMemory bool
	// Logger receives Pebble's own messages at debug level; nil discards them.
	Logger *slog.Logger
	// CacheSize is the block cache in bytes (default 64 MiB).
	CacheSize int64
	// MemTableSize is the size of one memtable in bytes (default 2 MiB; Pebble's own is 4).
	MemTableSize int64
	// BloomBitsPerKey sizes the bloom filter of every table (default 10,
	// about 1% false positives); a negative value disables the filters.
	BloomBitsPerKey int
	// WALMinSyncInterval is the least time between two syncs of the
	// write-ahead log (0: sync as soon as asked). A commit still returns
	// only once a sync covers it; the commits that arrive meanwhile share
	// that sync.
	WALMinSyncInterval time.Duration
	// ReadOnly opens the database without writing anything to its
	// directory (Pebble's read-only mode: its log is replayed in memory,
	// nothing flushed or compacted): a source that must stay as it was,
	// such as a backup storage copy reads (restore checks its files). A
	// write fails; a database of an earlier schema, or whose migration was
	// interrupted, is refused with ErrNeedsMigration (migrating it writes).
	ReadOnly bool
	// Knobs inject faults in tests; nil in production.
	Knobs *TestingKnobs
	// fs, set by this package's tests only, is the file system Pebble
	// uses instead of the disk (vfs.NewCrashableMem: a crash test keeps
	// only what was synced). No migration is resumed on it.
	fs vfs.FS
}

// TestingKnobs let tests of the packages above storage provoke failures
// that a real engine produces only under faults (a connection to PostgreSQL
// lost while its COMMIT is in flight). nil fields change nothing.
type TestingKnobs struct {
	// CommitResult sees the engine's result of every non-empty commit and
	// returns the one Commit goes on with: a test returns an error after a
	// commit that succeeded to stand for a COMMIT whose answer was lost.
	CommitResult func(err error) error
	// FS is the file system Pebble runs on instead of the disk (an
	// errorfs that fails writes, a vfs.NewCrashableMem whose CrashClone
	// keeps only what was synced); Open's dir names a directory in it.
	FS vfs.FS
}

// Default tuning (see config/defaults.toml [storage]).
const (
	DefaultCacheSize       = 64 << 20
	DefaultMemTableSize    = 2 << 20
	DefaultBloomBitsPerKey = 10
)

// DB is the typed view of the database, on either engine.
type DB struct {
	eng      engine
	guard    atomic.Pointer[DiskGuard]        // diskguard.go; nil: no guard
	onCommit atomic.Pointer[func(CommitInfo)] // metrics, see SetCommitObserver
	knobs    *TestingKnobs                    // nil but in fault tests
	fatal    chan struct{}                    // see Fatal
	fatalOne sync.Once
	// afterChunk, set by this package's tests only, runs after each
	// committed chunk of an in-place migration; its error stops it.
	afterChunk func() error
}

func newDB(eng engine) *DB { return &DB{eng: eng, fatal: make(chan struct{})} }

// Fatal is closed once the store can take no more writes until the process
// restarts: the PostgreSQL backend lost its database lock for good (its
// lock's session ended, and another process had the database before the
// lock was taken again; a session that merely ended, as in a PostgreSQL
// restart, is taken again without it). The server exits then, so that its
// supervisor restarts it and the lock is taken again, rather than refuse
// every write until an operator notices.
func (db *DB) Fatal() <-chan struct{} { return db.fatal }

// Open opens (creating if needed) the database in dir, migrating a data
// directory written by an older version once (see migrate.go).
func Open(dir string, opts *Options) (*DB, error) {
	if opts == nil {
		opts = &Options{}
	}
	if opts.Knobs != nil && opts.Knobs.FS != nil && opts.fs == nil {
		o := *opts
		o.fs = opts.Knobs.FS
		opts = &o
	}
	if !opts.InMemory && opts.fs == nil && opts.ReadOnly {
		if _, err := os.Stat(dir + migratingSuffix); err == nil {
			return nil, fmt.Errorf("%w: %s: a migration of it to this version was interrupted", ErrNeedsMigration, dir)
		}
	} else if !opts.InMemory && opts.fs == nil {
		if err := recoverMigration(dir); err != nil {
			return nil, fmt.Errorf("storage: resume migration of %s: %w", dir, err)
		}
	}
	db, err := openPebble(dir, opts)
	if err != nil {
		return nil, err
	}
	db.knobs = opts.Knobs
	return upgrade(db, dir, opts)
}

// Close flushes nothing extra (every commit is already synced) and releases
// the engine (Pebble's directory lock, PostgreSQL's connections).
func (db *DB) Close() error { return db.eng.close() }

// get copies the value of key, since Pebble's slice is only valid until the
// closer runs.
func (db *DB) get(key []byte) ([]byte, error) { return get(db.eng, key) }

func get(r reader, key []byte) ([]byte, error) {
	var out []byte
	err := r.view(key, func(v []byte) error {
		out = append([]byte(nil), v...)
		return nil
	})
	return out, err
}

// has reports whether key holds a value, without copying it.
func (db *DB) has(key []byte) (bool, error) {
	err := db.view(key, func([]byte) error { return nil })
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// view calls fn with the value of key, valid only during the call (no
// copy: a keyspace's codec decodes from it).
func (db *DB) view(key []byte, fn func([]byte) error) error { return db.eng.view(key, fn) }

// Account reads one account with all its records.
func (db *DB) Account(id AccountID) (*Account, error) {
	a, err := db.LoadAccount(id)
	return a, err
}

// LoadAccount reads one account with all its records.
func (db *DB) LoadAccount(id AccountID) (*Account, error) { return loadAccount(db.eng, id) }

func loadAccount(r reader, id AccountID) (*Account, error) {
	a, err := loadProfile(r, id)
	if err != nil {
		return nil, err
	}
	type seqUpgrade struct {
		seq uint64
		u   Upgrade
	}
	var ups []seqUpgrade
	p := ownedPrefix(id)
	var m pb.Upgrade
	err = r.scan(p, prefixEnd(p), func(k, v []byte) error {
		if err := decodePB(v, &m); err != nil {
			return err
		}
		ups = append(ups, seqUpgrade{m.Seq, Upgrade{ID: string(k[len(p):]), Data: m.Data, StartTime: m.StartTime,
			EndTime: m.EndTime, Used: int(m.Used), Score: m.Score}})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("storage: account %d upgrades: %w", id, err)
	}
	sort.Slice(ups, func(i, j int) bool { return ups[i].seq < ups[j].seq })
	if len(ups) > 0 {
		a.Upgrades = make([]Upgrade, len(ups))
		for i := range ups {
			a.Upgrades[i] = ups[i].u
		}
	}
	return a, nil
}

// AccountProfile reads an account without its owned upgrades (Upgrades is
// nil): what login needs, at a cost independent of what the account owns.
// Like LoadAccount it reads the credentials record too (Account.SRP).
func (db *DB) AccountProfile(id AccountID) (*Account, error) {
	return loadProfile(db.eng, id)
}

func loadProfile(r reader, id AccountID) (*Account, error) {
	pv, err := get(r, accountKey(id))
	if err != nil {
		return nil, fmt.Errorf("storage: account %d: %w", id, err)
	}
	var p pb.Profile
	if err := decodePB(pv, &p); err != nil {
		return nil, fmt.Errorf("storage: account %d: %w", id, err)
	}
	a := &Account{}
	fromProfile(&p, a)
	if a.SRP, _, err = readCredentials(r, id); err != nil {
		return nil, err
	}
	lv, err := get(r, listsKey(id))
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return nil, fmt.Errorf("storage: account %d lists: %w", id, err)
	default:
		var l pb.Lists
		if err := decodePB(lv, &l); err != nil {
			return nil, fmt.Errorf("storage: account %d lists: %w", id, err)
		}
		fromLists(&l, a)
	}
	return a, nil
}

// AccountExists reports whether an account record exists under id.
func (db *DB) AccountExists(id AccountID) (bool, error) { return db.has(accountKey(id)) }

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
	s, err := db.SessionByKey(SessionHash(cookie))
	if err != nil {
		return nil, err
	}
	s.Cookie = cookie
	return s, nil
}

// SessionByKey reads a session by its key (the SHA-256 of its cookie).
func (db *DB) SessionByKey(key [32]byte) (*Session, error) {
	b, err := db.get(sessionKey(key))
	if err != nil {
		return nil, fmt.Errorf("storage: session: %w", err)
	}
	var p pb.Session
	if err := decodePB(b, &p); err != nil {
		return nil, fmt.Errorf("storage: session: %w", err)
	}
	return fromSession(&p, key), nil
}

// Meta reads a metadata value by name.
func (db *DB) Meta(name string) ([]byte, error) {
	b, err := db.get(metaKey(name))
	if err != nil {
		return nil, fmt.Errorf("storage: meta %q: %w", name, err)
	}
	return b, nil
}

// RecordClusterPeer records that a node of the cluster answered at the
// cluster address addr (as a node's cluster.peers lists it), so that a
// node restarted later counts it among the cluster's nodes before it hears
// from it (host/cluster's majority). A host-owned metadata record, written
// once per peer and process.
func (db *DB) RecordClusterPeer(addr string) error {
	b := db.NewBatch()
	b.PutMeta(metaClusterPeer+addr, []byte{1})
	return db.Commit(b)
}

// ClusterPeers returns the cluster addresses RecordClusterPeer recorded.
func (db *DB) ClusterPeers() (map[string]bool, error) {
	p := metaKey(metaClusterPeer)
	out := map[string]bool{}
	err := db.scan(p, func(k, _ []byte) error {
		out[string(k[len(p):])] = true
		return nil
	})
	return out, err
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

// EachAccount calls fn for every account (without its owned upgrades) in id
// order until fn errs.
func (db *DB) EachAccount(fn func(*Account) error) error {
	return db.scan([]byte(prefixAccount), func(k, _ []byte) error {
		id, err := decodeID(k[len(prefixAccount):])
		if err != nil {
			return err
		}
		a, err := db.AccountProfile(id)
		if err != nil {
			return err
		}
		return fn(a)
	})
}

// EachSession calls fn for every stored session until fn errs. The
// sessions have Hash set and Cookie empty (cookies are not stored).
func (db *DB) EachSession(fn func(*Session) error) error {
	var p pb.Session
	return db.scan([]byte(prefixSession), func(k, v []byte) error {
		var key [32]byte
		if copy(key[:], k[len(prefixSession):]) != 32 || len(k) != len(prefixSession)+32 {
			return fmt.Errorf("%w: session key of %d bytes", ErrCorrupt, len(k))
		}
		if err := decodePB(v, &p); err != nil {
			return err
		}
		return fn(fromSession(&p, key))
	})
}

// scan calls fn with every key and value under prefix p, in key order. The
// slices are only valid during the call.
func (db *DB) scan(p []byte, fn func(k, v []byte) error) error {
	return db.eng.scan(p, prefixEnd(p), fn)
}

// Commit applies the batch atomically and syncs it to disk before returning:
// a reply sent after Commit returns is never lost, even on kill -9. The batch
// cannot be used afterwards. An empty batch commits without touching disk.
//
// A batch with conditions (conditions.go) commits only if they hold; if
// not, Commit returns the *ConflictError or *FencedError (ErrConflict),
// with nothing written.
func (db *DB) Commit(b *Batch) error {
	if b.err != nil {
		b.eb.release()
		return b.err
	}
	if b.Empty() { // a fence alone writes nothing, so it checks nothing
		b.eb.release()
		return nil
	}
	guard := db.guard.Load()
	if err := guard.admit(); err != nil { // nothing written: a clean refusal
		b.eb.release()
		return err
	}
	start, ops, size := time.Now(), b.eb.count(), b.eb.size()
	var c *conditions
	if !b.conds.none() {
		c = &b.conds
		ops += len(c.news) + len(c.swaps) + len(c.counts)
	}
	err := guard.apply(db.eng, b.eb, c) // synced, with engine panics recovered
	if db.knobs != nil && db.knobs.CommitResult != nil {
		err = db.knobs.CommitResult(err)
	}
	db.observeCommit(ops, size, start, err)
	b.eb.release()
	var conflict *ConflictError
	var fenced *FencedError
	switch {
	case errors.As(err, &fenced): // a refusal, not a storage failure: no health record
		return fenced
	case errors.As(err, &conflict):
		return conflict
	case err != nil:
		return db.engineFailure(guard, fmt.Errorf("storage: commit: %w", err))
	}
	guard.succeeded()
	return nil
}

// engineFailure classifies a failed write of the engine for the caller and
// for Health: a definite failure (errNotCommitted) as is, any other as
// ErrCommitUncertain; a lost PostgreSQL lock also closes Fatal.
func (db *DB) engineFailure(guard *DiskGuard, err error) error {
	if errors.Is(err, ErrPostgresLockLost) {
		db.fatalOne.Do(func() { close(db.fatal) })
	}
	if errors.Is(err, errNotCommitted) {
		return guard.refused(err)
	}
	return guard.failed(err)
}

// errNotCommitted marks an engine's commit failure that wrote nothing for
// sure (PostgreSQL refused or never received the COMMIT): a plain failure,
// not an uncertain one.
var errNotCommitted = errors.New("storage: not committed")

// Checkpoint writes a consistent copy of the database into dir, which must
// not exist. It is safe while the database is being written. The copy is
// private like the database (0700/0600). The PostgreSQL engine has none
// (ErrNoCheckpoint): its operators back up with pg_dump.
func (db *DB) Checkpoint(dir string) error {
	if err := db.eng.checkpoint(dir); err != nil {
		return fmt.Errorf("storage: checkpoint to %s: %w", dir, err)
	}
	return nil
}

// ErrNoCheckpoint is returned by Checkpoint on an engine that cannot copy
// itself into a directory (PostgreSQL: use pg_dump).
var ErrNoCheckpoint = errors.New("storage: this storage backend has no checkpoint")

// DBStats are storage counters for benchmarks and metrics.
type DBStats struct {
	WALBytes      uint64 // bytes written to the write-ahead log since Open
	CacheHits     int64
	CacheMisses   int64
	DiskBytesUsed uint64
}

// Stats reads the current counters.
func (db *DB) Stats() DBStats { return db.eng.stats() }

// ReleaseMemory empties the engine's in-memory block cache and returns the
// memory it freed to the operating system (Pebble; nothing on PostgreSQL).
// The account actors call it after a wave of passivations: the blocks they
// read are cold. Reads refill the cache; it costs them nothing else.
func (db *DB) ReleaseMemory() { db.eng.releaseMemory() }

func unixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

var _ io.Closer = (*DB)(nil)
