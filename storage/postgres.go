package storage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/honmaster/masterserver/host/failure/detail"
	"github.com/honmaster/masterserver/storage/internal/pgkv"
)

// The PostgreSQL backend keeps the whole database in one key/value table
// (storage/internal/pgkv: k bytea primary key, v bytea) rather than a
// table per record. Every record, keyspace, index, schema version and
// migration of this package is already expressed as ordered keys (keys.go),
// and bytea sorts like Pebble's keys (memcmp, then length: the contract
// tests check it at 0x00 and 0xff), so one table carries all of them with
// the same code, including keyspaces areas declare later; tables per record
// would need the whole record model a second time, as SQL, and a schema
// change for every area's new keyspace. What it costs: a prefix scan is an
// index range scan (k >= p AND k < prefixEnd(p)), which the primary key's
// B-tree serves in key order, and values are opaque to SQL (operators query
// them through the server's own commands, not ad hoc SQL).
//
// Differences from the Pebble engine that callers can see:
//   - A scan reads pages of at most 512 rows in separate statements, so it
//     is not one snapshot: a row written by another writer during a long
//     scan may or may not be seen. Every scan that must be exact runs in
//     the account's actor (the one writer of what it scans) or at start.
//   - A commit is a SERIALIZABLE transaction (retried on 40001); one whose
//     COMMIT was sent but not answered returns ErrCommitUncertain like a
//     Pebble commit that failed in the engine, and one that surely wrote
//     nothing returns a plain error.
//   - Checkpoint returns ErrNoCheckpoint (back up with pg_dump).
//   - A commit is refused (ErrUnavailable, nothing written) while the
//     database cannot be reached or the session holding its advisory lock
//     is gone; the lock is taken again as soon as the database answers,
//     unless another process had the database meanwhile: then every commit
//     is refused (ErrPostgresLockLost) and Fatal is closed. Health says
//     which.
//   - Cluster nodes (PostgresOptions.Cluster) share the database: they
//     hold its advisory lock in shared mode, which excludes a single-node
//     server and the offline commands (exclusive) and is excluded by them.

// PostgresOptions configures OpenPostgres.
type PostgresOptions struct {
	// URL is a postgres:// URL (or a key=value connection string). Its
	// password may be left out and given by Password or the PGPASSWORD
	// environment variable.
	URL string
	// Password, when set, replaces the URL's and PGPASSWORD's.
	Password string
	// MaxConns is the connection pool's size (0: max(4, CPUs)).
	MaxConns int
	// StatementTimeout bounds each statement on the server (0: none).
	StatementTimeout time.Duration
	// ConnectTimeout bounds Open's first connection (0: 10s).
	ConnectTimeout time.Duration
	// Cluster opens the database as one node of a cluster: the nodes share
	// it (the database's advisory lock is taken in shared mode), and each
	// account keeps one writer through owner epochs (ActivateAccount,
	// Batch.Fence) instead of through the lock. A single-node server or an
	// offline command (Cluster false) takes the lock alone: it and the
	// cluster exclude each other (ErrPostgresInUseByServer,
	// ErrPostgresInUseByCluster).
	Cluster bool
	// ClusterName is the cluster's name (with Cluster): the first node
	// records it in the database, and a node of another name is refused
	// (ErrPostgresOtherCluster), so that two clusters never share one
	// database. "": not checked.
	ClusterName string
	// Logger receives the one line a migration logs, and a warning when
	// nothing keeps a second server off the database (CockroachDB); nil:
	// none.
	Logger interface {
		Info(msg string, args ...any)
		Warn(msg string, args ...any)
	}
}

// ErrPostgresUnreachable is the kind of OpenPostgres's failure to reach the
// database or use its table: a detail.Error whose cause is the failure.
var ErrPostgresUnreachable = errors.New("storage: cannot use the PostgreSQL database")

// ErrPostgresInUse refuses a PostgreSQL database another process (a server,
// an offline command, a copy, cluster nodes) has open: like a data
// directory's lock. OpenPostgres returns it wrapped in
// ErrPostgresInUseByServer or ErrPostgresInUseByCluster when it could tell
// which kind of process holds the database.
var ErrPostgresInUse = errors.New("the PostgreSQL database is in use by another process")

// The two kinds of holder of a PostgreSQL database in use (both wrap
// ErrPostgresInUse).
var (
	// ErrPostgresInUseByServer: a single-node server or an offline command
	// (storage copy, an operator command) has the database open alone.
	ErrPostgresInUseByServer = fmt.Errorf("%w: a single-node server or an offline command has it open, alone", ErrPostgresInUse)
	// ErrPostgresInUseByCluster: cluster nodes share the database, which
	// only another cluster node may join while they run.
	ErrPostgresInUseByCluster = fmt.Errorf("%w: cluster nodes share it, and only cluster nodes may open it while they run", ErrPostgresInUse)
)

// ErrPostgresLockLost refuses a commit, with nothing written, once the
// database's lock is lost for good: the server's session holding it ended
// (PostgreSQL restarted, or the session was terminated) and another process
// had the database before the lock was taken again, or holds it now, so
// this process's accounts and caches may be stale and two writers of one
// account would corrupt it. Every later commit is refused too, Health
// reports it and Fatal is closed, until a restart.
var ErrPostgresLockLost = errors.New("storage: the database lock was lost; another server may be using this database: restart")

// ErrPostgresOtherCluster refuses a cluster node whose cluster name is not
// the one recorded in the database by the cluster's first node: an
// *OtherClusterError says both.
var ErrPostgresOtherCluster = errors.New("the PostgreSQL database belongs to another cluster")

// OtherClusterError is ErrPostgresOtherCluster with the names.
type OtherClusterError struct{ Recorded, Node string }

func (e *OtherClusterError) Error() string {
	return fmt.Sprintf("%s: it is cluster %q's, and this node is of cluster %q", ErrPostgresOtherCluster, e.Recorded, e.Node)
}

// Is makes errors.Is(err, ErrPostgresOtherCluster) hold.
func (e *OtherClusterError) Is(target error) bool { return target == ErrPostgresOtherCluster }

// ErrUnavailable refuses a read or a commit, with nothing written, while
// the database cannot be reached (PostgreSQL is down or restarting, the
// connection was lost) or its lock is being taken again: the same request
// can be tried again in a moment. A commit whose COMMIT was sent and not
// answered is ErrCommitUncertain instead.
var ErrUnavailable = errors.New("storage: the database cannot be reached right now; nothing was written: try again")

// ErrPostgresURL is the kind of an unparsable PostgreSQL URL: a
// detail.Error whose cause says why.
var ErrPostgresURL = errors.New("storage: bad PostgreSQL URL")

// OpenPostgres opens the database in PostgreSQL, creating its table when
// missing and bringing its schema to SchemaVersion like Open (a database
// written by a newer version is refused with ErrNewerSchema).
func OpenPostgres(o PostgresOptions) (*DB, error) {
	wait := o.ConnectTimeout
	if wait <= 0 {
		wait = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var logf func(msg string, args ...any)
	if o.Logger != nil {
		logf = o.Logger.Warn
	}
	st, err := pgkv.Open(ctx, pgkv.Config{URL: o.URL, Password: o.Password, MaxConns: int32(o.MaxConns),
		StatementTimeout: o.StatementTimeout, Shared: o.Cluster, Log: logf})
	if errors.Is(err, pgkv.ErrBadURL) {
		return nil, detail.New(ErrPostgresURL, "%w", err)
	}
	var inUse *pgkv.InUseError
	if errors.As(err, &inUse) {
		switch {
		case inUse.Shared:
			return nil, ErrPostgresInUseByCluster
		case inUse.Exclusive:
			return nil, ErrPostgresInUseByServer
		}
		return nil, ErrPostgresInUse
	}
	if err != nil {
		return nil, detail.New(ErrPostgresUnreachable, "%w", err) // the caller names the URL (RedactURL)
	}
	if why := st.NoLock(); why != "" && o.Logger != nil {
		o.Logger.Warn("storage: nothing keeps a second server off this database; run only one", "why", why)
	}
	// The schema is checked, migrated and completed by one process at a
	// time (cluster nodes started at once): pgkv.Open took the set-up lock.
	defer st.SetupDone()
	db := newDB(&pgEngine{st: st})
	go func() { // the lock lost for good: the server exits (Fatal)
		select {
		case <-st.Lost():
			db.fatalOne.Do(func() { close(db.fatal) })
		case <-st.Done():
		}
	}()
	if err := db.setUpPostgres(o); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// setUpPostgres brings a PostgreSQL database to SchemaVersion and checks
// (or records) its cluster's name.
func (db *DB) setUpPostgres(o PostgresOptions) error {
	v, err := db.schema()
	if err != nil {
		return err
	}
	switch {
	case v == SchemaVersion:
	case v >= 2 && v < SchemaVersion: // in place, as a data directory (migrate.go)
		start := time.Now()
		n, err := migrateInPlace(db, v)
		if err != nil {
			return fmt.Errorf("storage: migrate the PostgreSQL database to schema %d: %w", SchemaVersion, err)
		}
		if o.Logger != nil {
			o.Logger.Info("storage: database migrated", "from", v, "to", SchemaVersion, "records", n, "took", time.Since(start))
		}
	default:
		return fmt.Errorf("storage: the PostgreSQL database holds schema %d, which only a data directory can be migrated from", v)
	}
	if !o.Cluster || o.ClusterName == "" {
		return nil
	}
	switch name, err := db.get(metaKey(metaClusterName)); {
	case errors.Is(err, ErrNotFound):
		b := db.NewBatch()
		b.PutMeta(metaClusterName, []byte(o.ClusterName))
		return db.Commit(b)
	case err != nil:
		return fmt.Errorf("storage: the cluster's name: %w", err)
	case string(name) != o.ClusterName:
		return &OtherClusterError{Recorded: string(name), Node: o.ClusterName}
	}
	return nil
}

// PostgresTable is the table that holds the whole database on PostgreSQL
// (what a pg_dump of the server's data must include).
const PostgresTable = pgkv.Table

// RedactURL returns a PostgreSQL URL (or key=value connection string)
// with its password replaced, for logs and messages.
func RedactURL(url string) string { return pgkv.Redact(url) }

// pgEngine adapts pgkv's Store to the engine seam.
type pgEngine struct{ st *pgkv.Store }

func (e *pgEngine) close() error { e.st.Close(); return nil }

func (e *pgEngine) view(key []byte, fn func([]byte) error) error {
	err := e.st.Get(key, fn)
	if errors.Is(err, pgkv.ErrNotFound) {
		return ErrNotFound
	}
	return unavailable(err)
}

func (e *pgEngine) scan(lo, hi []byte, fn func(k, v []byte) error) error {
	return unavailable(e.st.Scan(lo, hi, fn))
}

// unavailable marks a read that could not reach the database with
// ErrUnavailable (the caller says "try again", not "failed").
func unavailable(err error) error {
	if err != nil && !errors.Is(err, ErrUnavailable) && pgkv.Unavailable(err) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}

func (e *pgEngine) newBatch() engineBatch { return &pgBatch{} }

func (e *pgEngine) apply(b engineBatch, c *conditions) error {
	if c.none() {
		return e.failure(e.st.Apply(b.(*pgBatch).writes))
	}
	pc := &pgkv.Conditions{}
	for _, f := range c.fences {
		pc.Checks = append(pc.Checks, pgkv.Check{Key: ownerKey(f.id), OK: f.ok})
	}
	for _, n := range c.news {
		pc.New = append(pc.New, pgkv.Write{Key: n.k, Value: n.v})
	}
	for _, s := range c.swaps {
		pc.Swaps = append(pc.Swaps, pgkv.Swap{Key: s.k, Old: s.old, New: s.nu, AbsentOK: s.absentOK})
	}
	for _, op := range c.orderedCounts() {
		pc.Counts = append(pc.Counts, pgkv.CountOp{Key: op.key, Delta: op.delta, Set: op.kind == countSet,
			Reset: op.kind == countReset, Floor: op.kind == countTake, Sets: op.sets})
	}
	return e.failure(e.st.ApplyIf(b.(*pgBatch).writes, pc))
}

func (e *pgEngine) update(key []byte, fn func(old []byte, found bool) ([]byte, error)) error {
	return e.failure(e.st.Update(key, fn))
}

// failure classifies an error of pgkv for Commit.
func (e *pgEngine) failure(err error) error {
	var conflict *pgkv.ConflictError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &conflict):
		return fmt.Errorf("%w: %w", errNotCommitted, conflictOn(conflict.Key))
	case errors.Is(err, pgkv.ErrLockLost):
		return fmt.Errorf("%w: %w: %w", errNotCommitted, ErrPostgresLockLost, err)
	case errors.Is(err, pgkv.ErrNotCommitted) && pgkv.Unavailable(err):
		return fmt.Errorf("%w: %w: %w", errNotCommitted, ErrUnavailable, err)
	case errors.Is(err, pgkv.ErrNotCommitted):
		return fmt.Errorf("%w: %w", errNotCommitted, err)
	}
	return err
}

func (e *pgEngine) health() error {
	err := e.st.Healthy()
	switch {
	case errors.Is(err, pgkv.ErrUnavailable):
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	case err != nil:
		return fmt.Errorf("%w: %w", ErrPostgresLockLost, err)
	}
	return nil
}

func (e *pgEngine) checkpoint(string) error {
	return fmt.Errorf("%w: the PostgreSQL backend is backed up with pg_dump", ErrNoCheckpoint)
}

func (e *pgEngine) stats() DBStats { return DBStats{DiskBytesUsed: e.st.SizeBytes()} }

func (e *pgEngine) releaseMemory() {} // its cache is the PostgreSQL server's

func (e *pgEngine) engineStats() EngineStats { return EngineStats{DiskSpaceBytes: e.st.SizeBytes()} }

// pgBatch buffers the writes of one commit. A deferred set's key and value
// are carved from one allocation.
type pgBatch struct {
	writes []pgkv.Write
	bytes  int
}

func (b *pgBatch) set(k, v []byte) error {
	b.writes = append(b.writes, pgkv.Write{Key: append([]byte(nil), k...), Value: append([]byte{}, v...)})
	b.bytes += len(k) + len(v)
	return nil
}

func (b *pgBatch) del(k []byte) error {
	b.writes = append(b.writes, pgkv.Write{Key: append([]byte(nil), k...), Delete: true})
	b.bytes += len(k)
	return nil
}

func (b *pgBatch) setDeferred(keyLen, valueLen int) ([]byte, []byte) {
	buf := make([]byte, keyLen+valueLen)
	k, v := buf[:keyLen:keyLen], buf[keyLen:]
	b.writes = append(b.writes, pgkv.Write{Key: k, Value: v})
	b.bytes += keyLen + valueLen
	return k, v
}

func (b *pgBatch) finishDeferred() error { return nil }
func (b *pgBatch) count() int            { return len(b.writes) }
func (b *pgBatch) size() int             { return b.bytes }
func (b *pgBatch) empty() bool           { return len(b.writes) == 0 }
func (b *pgBatch) release()              { b.writes = nil }
