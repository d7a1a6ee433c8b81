package storage

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/honmaster/masterserver/storage/internal/pb"
)

// SchemaVersion is the layout this code reads and writes, kept in the
// database under m/schema_version (4 bytes, big-endian).
//
//	1  JSON records: a/<id> the whole account, s/<cookie> raw cookies,
//	   m/plinko_catalog. (No version key was written.)
//	2  protobuf records per concern (keys.go), sessions by cookie hash,
//	   area keyspaces x/ and g/.
//	3  the nickname index (nickname.go), built in place from the profiles
//	   (migrateNicknames); nothing else changed.
//	4  the owners index (owners.go): r/<id><key> for every index keyspace
//	   entry and look-alike skeleton entry, built in place from them
//	   (migrateOwners); nothing else changed.
//	5  the SRP credentials in a record of their own, v/<id>, moved in place
//	   out of the profile records a/<id> (migrateCredentials), so that a
//	   profile write neither reads nor copies them.
//	6  each account's list of sessions (sessions.go), t/<id>, built in
//	   place from the sessions (migrateAccountSessions).
//
// A version 1 directory is copied into the current layout (migrateCopy
// writes through the current code, nickname and owners indexes and
// credentials records and lists of sessions included); a version 2 to 5 one gets what it
// lacks in place (migrateInPlace).
const SchemaVersion = 6

// v1CatalogKey and its new home: the one area record schema version 1 kept
// in the metadata space. Version 2 keeps it in the global keyspace
// "plinko.catalog" (declared by host/plinko), value unchanged.
const (
	v1CatalogKey = prefixMeta + "plinko_catalog"
	v2CatalogKey = prefixGlobKS + "plinko.catalog/"
)

// migrateChunk bounds the records copied per commit.
const migrateChunk = 1024

// Suffixes of the directories a migration uses next to the data directory.
const (
	migratingSuffix = ".migrating" // the new database being written
	oldSuffix       = ".v1"        // the old one, between the two renames
)

// schema reports the version of an open database: SchemaVersion for a fresh
// one (and records it), 1 for an older directory without a version key.
func (db *DB) schema() (uint32, error) {
	v, err := db.get(metaKey(metaSchema))
	switch {
	case err == nil:
		if len(v) != 4 {
			return 0, fmt.Errorf("storage: schema version: %w", ErrCorrupt)
		}
		n := binary.BigEndian.Uint32(v)
		return n, CheckSchema(n, SchemaVersion)
	case !errors.Is(err, ErrNotFound):
		return 0, fmt.Errorf("storage: schema version: %w", err)
	}
	empty := true
	if err := db.scan(nil, func(_, _ []byte) error { empty = false; return errStop }); err != nil && !errors.Is(err, errStop) {
		return 0, err
	}
	if !empty {
		return 1, nil
	}
	b := db.NewBatch()
	b.PutMeta(metaSchema, binary.BigEndian.AppendUint32(nil, SchemaVersion))
	return SchemaVersion, db.Commit(b)
}

var errStop = errors.New("stop")

// CheckSchema is the check every binary makes when it opens a database:
// one at schema v is refused (ErrNewerSchema) by a binary that reads
// schema readable (its SchemaVersion) when v is newer.
func CheckSchema(v, readable uint32) error {
	if v > readable {
		return fmt.Errorf("%w (schema %d, this binary reads %d)", ErrNewerSchema, v, readable)
	}
	return nil
}

// DirSchema reports the schema version of the database in dir without
// changing anything (no migration, no version recorded): 1 for a directory
// written before versions were recorded, 0 for an empty database. A
// version newer than SchemaVersion is reported, not refused: pass it to
// CheckSchema.
func DirSchema(dir string) (uint32, error) {
	if _, err := os.Stat(dir); err != nil {
		return 0, err
	}
	db, err := openPebble(dir, &Options{})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	v, err := db.get(metaKey(metaSchema))
	switch {
	case err == nil && len(v) == 4:
		return binary.BigEndian.Uint32(v), nil
	case err == nil:
		return 0, fmt.Errorf("storage: schema version: %w", ErrCorrupt)
	case !errors.Is(err, ErrNotFound):
		return 0, fmt.Errorf("storage: schema version: %w", err)
	}
	empty := true
	if err := db.scan(nil, func(_, _ []byte) error { empty = false; return errStop }); err != nil && !errors.Is(err, errStop) {
		return 0, err
	}
	if empty {
		return 0, nil
	}
	return 1, nil
}

// recoverMigration finishes or discards a migration a crash interrupted:
// the old directory is only removed once the new one is in place.
func recoverMigration(dir string) error {
	_, errDir := os.Stat(dir)
	_, errNew := os.Stat(dir + migratingSuffix)
	_, errOld := os.Stat(dir + oldSuffix)
	switch {
	case os.IsNotExist(errDir) && errNew == nil && errOld == nil:
		// Crashed between the renames: the new database is complete.
		if err := os.Rename(dir+migratingSuffix, dir); err != nil {
			return err
		}
		return os.RemoveAll(dir + oldSuffix)
	case errDir == nil && errOld == nil:
		return os.RemoveAll(dir + oldSuffix)
	case errDir == nil && errNew == nil:
		return os.RemoveAll(dir + migratingSuffix) // redo it
	}
	return nil
}

// migrateCopy writes every record of old (schema version 1) into a fresh
// database in dir+".migrating", converted, then swaps the directories.
// Copying rather than rewriting in place leaves no version 1 value behind
// (Pebble recycles log files and keeps key history in its manifest: a raw
// session cookie would survive there).
func migrateCopy(old *DB, dir string, opts *Options) (int, error) {
	tmp := dir + migratingSuffix
	nu, err := openPebble(tmp, opts)
	if err != nil {
		return 0, err
	}
	n := 0
	b := nu.NewBatch()
	sessions := map[AccountID][]*Session{} // their lists, written last
	flush := func(force bool) error {
		if b.eb.count() < migrateChunk && !force {
			return nil
		}
		if err := nu.Commit(b); err != nil {
			return err
		}
		b = nu.NewBatch()
		return nil
	}
	err = old.scan(nil, func(k, v []byte) error {
		n++
		switch {
		case string(k) == v1CatalogKey:
			b.set([]byte(v2CatalogKey), append([]byte(nil), v...), nil)
		case len(v) > 0 && v[0] == formatV1 && string(k[:2]) == prefixAccount:
			var a Account
			if err := json.Unmarshal(v[1:], &a); err != nil {
				return fmt.Errorf("account %x: %w: %v", k, ErrCorrupt, err)
			}
			b.PutAccount(&a, nil)
			b.PutUpgrades(a.ID, 0, a.Upgrades)
		case len(v) > 0 && v[0] == formatV1 && string(k[:2]) == prefixSession:
			var s Session
			if err := json.Unmarshal(v[1:], &s); err != nil {
				return fmt.Errorf("session: %w: %v", ErrCorrupt, err)
			}
			s.Cookie = string(k[len(prefixSession):])
			b.PutSession(&s)
			sessions[s.AccountID] = append(sessions[s.AccountID], &s)
		default:
			b.set(append([]byte(nil), k...), append([]byte(nil), v...), nil)
		}
		if b.err != nil {
			return b.err
		}
		return flush(false)
	})
	if err == nil {
		for _, id := range slices.Sorted(maps.Keys(sessions)) {
			b.PutAccountSessions(id, sessions[id])
		}
		b.PutMeta(metaSchema, binary.BigEndian.AppendUint32(nil, SchemaVersion))
		err = flush(true)
	} else {
		b.Discard()
	}
	if cerr := nu.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.RemoveAll(tmp)
		return n, err
	}
	if err := old.Close(); err != nil {
		return n, err
	}
	if err := os.Rename(dir, dir+oldSuffix); err != nil {
		return n, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return n, err
	}
	return n, os.RemoveAll(dir + oldSuffix)
}

// migrateNicknames writes the nickname index entry of every account of a
// schema version 2 database, in place, then records version 3. Each chunk
// commits on its own: a crash leaves version 2 with some entries written,
// and the next open writes them all again (the same keys, empty values).
func migrateNicknames(db *DB) (int, error) {
	n := 0
	c := newChunked(db)
	err := db.scan([]byte(prefixAccount), func(k, v []byte) error {
		id, err := decodeID(k[len(prefixAccount):])
		if err != nil {
			return err
		}
		var p pb.Profile
		if err := decodePB(v, &p); err != nil {
			return fmt.Errorf("account %d: %w", id, err)
		}
		c.b.putNickname(id, "", p.Nickname)
		n++
		return c.flush()
	})
	return n, c.finish(err)
}

// chunked is the batch of an in-place migration, committed every
// migrateChunk records so that no batch holds a whole database.
type chunked struct {
	db *DB
	b  *Batch
}

func newChunked(db *DB) *chunked { return &chunked{db: db, b: db.NewBatch()} }

// flush commits the batch once it holds migrateChunk records.
func (c *chunked) flush() error {
	if c.b.eb.count() < migrateChunk {
		return nil
	}
	if err := c.db.Commit(c.b); err != nil {
		return err
	}
	c.b = c.db.NewBatch()
	if c.db.afterChunk != nil {
		return c.db.afterChunk() // a test stops the migration here, as a crash would
	}
	return nil
}

// finish commits what is left, or discards it when the migration failed
// with err.
func (c *chunked) finish(err error) error {
	if err != nil {
		c.b.Discard()
		return err
	}
	return c.db.Commit(c.b)
}

// migrateInPlace brings a schema version 2 to 5 database to SchemaVersion
// in place (the nickname index from 2, the owners index from 3, the
// credentials records from 4, the lists of sessions from 5), then records the
// version. Each step
// is safe to run again after a crash.
func migrateInPlace(db *DB, from uint32) (int, error) {
	n := 0
	if from == 2 {
		m, err := migrateNicknames(db)
		if n += m; err != nil {
			return n, err
		}
	}
	if from <= 3 {
		m, err := migrateOwners(db)
		if n += m; err != nil {
			return n, err
		}
	}
	if from <= 4 {
		m, err := migrateCredentials(db)
		if n += m; err != nil {
			return n, err
		}
	}
	m, err := migrateAccountSessions(db)
	if n += m; err != nil {
		return n, err
	}
	b := db.NewBatch()
	b.PutMeta(metaSchema, binary.BigEndian.AppendUint32(nil, SchemaVersion))
	return n, db.Commit(b)
}

// upgrade brings an open database to SchemaVersion and returns the database
// to use (a new one when it was migrated).
// ErrNeedsMigration refuses to open read-only (Options.ReadOnly) a
// database of an earlier schema, or one whose migration was interrupted:
// migrating it writes.
var ErrNeedsMigration = errors.New("storage: the database must be migrated to this version's schema, which writes")

func upgrade(db *DB, dir string, opts *Options) (*DB, error) {
	v, err := db.schema()
	if err != nil {
		db.Close()
		return nil, err
	}
	if v == SchemaVersion {
		return db, nil
	}
	if opts.ReadOnly {
		db.Close()
		return nil, fmt.Errorf("%w: %s holds schema %d, and this version reads %d", ErrNeedsMigration, dir, v, SchemaVersion)
	}
	if v >= 2 && v < SchemaVersion {
		start := time.Now()
		n, err := migrateInPlace(db, v)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("storage: migrate %s to schema %d: %w", dir, SchemaVersion, err)
		}
		if opts.Logger != nil {
			opts.Logger.Info("storage: data directory migrated", "from", v, "to", SchemaVersion, "records", n, "took", time.Since(start))
		}
		return db, nil
	}
	if opts.InMemory {
		db.Close()
		return nil, fmt.Errorf("storage: an in-memory database cannot hold schema %d", v)
	}
	start := time.Now()
	n, err := migrateCopy(db, dir, opts)
	if err != nil {
		return nil, fmt.Errorf("storage: migrate %s to schema %d: %w", dir, SchemaVersion, err)
	}
	if opts.Logger != nil {
		opts.Logger.Info("storage: data directory migrated", "from", v, "to", SchemaVersion, "records", n, "took", time.Since(start))
	}
	return openPebble(dir, opts)
}
