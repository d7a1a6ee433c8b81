// Package pgkv is storage's PostgreSQL engine: one ordered key/value table,
//
//	CREATE TABLE honmaster_kv (k bytea PRIMARY KEY, v bytea NOT NULL)
//
// read by key and by key range (the primary key's B-tree gives both, in
// bytea order: memcmp, then length, the order of Pebble's default
// comparer), and written in SERIALIZABLE transactions (Update's, of one
// locked row, READ COMMITTED) retried on SQLSTATE 40001 (and 40P01)
// through cockroach-go's retry loop. Package storage puts
// its typed API on top (see storage/postgres.go for why one table and not
// one per record).
//
// It speaks only what PostgreSQL, CockroachDB and YugabyteDB all accept:
// bytea, a primary key, INSERT ... ON CONFLICT (k) DO UPDATE, unnest of
// two arrays, = ANY(array), ORDER BY with LIMIT, SERIALIZABLE and READ
// COMMITTED isolation (which a database may run as a stronger level:
// Update is right under any) and the synchronous_commit and
// statement_timeout settings. Conditional writes
// (ApplyIf) and Update add SELECT ... FOR SHARE / FOR UPDATE, INSERT ... ON
// CONFLICT DO NOTHING RETURNING and ON CONFLICT DO UPDATE ... WHERE; the
// cluster's shared lock is pg_try_advisory_lock_shared (PostgreSQL only,
// like the exclusive one). Only PostgreSQL 15 was tested (docs/postgres.md).
package pgkv

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/cockroach-go/v2/crdb"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

var (
	// ErrBadURL marks a connection URL that does not parse.
	ErrBadURL = errors.New("pgkv: bad connection URL")
	// ErrInUse: another process holds the database (its advisory lock).
	// Open returns it as an *InUseError, which says what kind of holder.
	ErrInUse = errors.New("pgkv: the database is in use by another process")
	// ErrNotFound: no row under the key.
	ErrNotFound = errors.New("pgkv: not found")
	// ErrNotCommitted marks a failed Apply that wrote nothing for sure:
	// the transaction failed before its COMMIT was sent, or the server
	// answered the COMMIT with a rollback.
	ErrNotCommitted = errors.New("pgkv: transaction not committed")
	// ErrOutcomeUnknown marks a failed Apply whose COMMIT was sent but not
	// answered (the connection was lost, the call timed out): the
	// transaction may have committed.
	ErrOutcomeUnknown = errors.New("pgkv: commit outcome unknown")
	// ErrLockLost marks an Apply refused, with nothing written, because the
	// database's advisory lock is lost for good: another process had the
	// database while this one's lock session was gone (relock.go). Every
	// later Apply is refused the same way, until the process opens the
	// database again. (A lock session that merely ended is taken again:
	// meanwhile Apply fails with ErrUnavailable.)
	ErrLockLost = errors.New("pgkv: the database lock was lost")
)

// Table is the one table the engine keeps, created by Open when missing.
const Table = "honmaster_kv"

// Config says where the database is and how to use it.
type Config struct {
	// URL is a postgres:// URL or a key=value connection string.
	URL string
	// Password, when set, replaces the URL's (and PGPASSWORD's).
	Password string
	// MaxConns is the pool size (0: pgxpool's default, max(4, CPUs)).
	MaxConns int32
	// StatementTimeout is the server's limit per statement (0: none).
	StatementTimeout time.Duration
	// Shared takes the database's advisory lock in shared mode: the
	// nodes of one cluster share the database with each other, and a
	// process that takes it exclusively (a single-node server, an
	// offline command) excludes them all, and they it.
	Shared bool
	// Log, when set, receives a line (a warning) when the lock's session
	// is lost, taken again, or lost for good (relock.go).
	Log func(msg string, args ...any)

	// netConn, set by this package's tests only, wraps each connection's
	// socket (a test counts the round trips of a write).
	netConn func(net.Conn) net.Conn
}

// idleInTransaction is the server's limit on a session idle inside a
// transaction (see Open).
const idleInTransaction = 3 * time.Second

// Store is an open engine: a connection pool over the table.
type Store struct {
	pool    *pgxpool.Pool
	lock    *pgx.Conn    // holds the advisory lock; the keeper's (relock.go) once it started
	lockPID atomic.Int32 // the lock connection's backend process id
	shared  bool         // the lock is held in shared mode (Config.Shared)
	noLock  string       // why the database has no lock ("": it has one)
	setup   bool         // the lock's session holds setupKey (SetupDone)
	state   atomic.Int32 // lockHeld, lockAway or lockGone (relock.go)
	why     atomic.Value // string: why the lock is gone
	gen     generation   // what this process left in the lock table (the keeper's)
	// exclusiveGen is gen.exclusive, for the writes in shared mode
	// (sharedLockCheck): set when the lock is taken.
	exclusiveGen atomic.Int64
	log          func(msg string, args ...any)
	cc           *pgx.ConnConfig // the keeper's, to take the lock again
	keepOnce     sync.Once       // the keeper starts at SetupDone, or never (Close)
	closeOnce    sync.Once       // Close runs once (a second call does nothing)
	poke         chan struct{}   // wakes the keeper
	quit         chan struct{}   // closed by Close
	kept         chan struct{}   // closed when the keeper returned (or never started)
	lost         chan struct{}   // closed when the lock is lost for good
	opTimeout    time.Duration
	retries      atomic.Int64

	// BeforeCommit, set by tests only, runs in every Apply attempt after
	// the writes were sent and before COMMIT, with the session's backend
	// process id: a test makes the COMMIT fail there (a concurrent writer,
	// a terminated session).
	BeforeCommit func(ctx context.Context, pid uint32) error
	// BeforeRetake, set by tests only, runs in the keeper before each
	// attempt to take a lost lock again (relock.go): a test holds the
	// keeper there while another process uses the database.
	BeforeRetake atomic.Pointer[func()]
}

// Page bounds of a scan: rows per query, and value bytes per page beyond
// which the page ends early (a page is held in memory while the caller's
// function runs on it, connection released).
const (
	pageRows  = 512
	pageBytes = 4 << 20
)

// maxRetries bounds the retries of one Apply on serialization failures and
// deadlocks.
const maxRetries = 30

// Open connects, checks the server answers and creates the table if
// missing. Its errors never contain the password.
func Open(ctx context.Context, c Config) (*Store, error) {
	pc, err := pgxpool.ParseConfig(c.URL)
	if err != nil {
		// pgconn's parse errors show the URL with its password redacted.
		return nil, fmt.Errorf("%w: %w", ErrBadURL, err)
	}
	if c.Password != "" {
		pc.ConnConfig.Password = c.Password
	}
	if c.MaxConns > 0 {
		pc.MaxConns = c.MaxConns
	}
	// Every session commits synchronously (a COMMIT returns only once the
	// transaction is flushed to the server's disk, and to a synchronous
	// replica if the server has one), whatever the server's default.
	pc.ConnConfig.RuntimeParams["synchronous_commit"] = "on"
	// A transaction of this store never waits for its client between
	// statements, so a session idle inside one belongs to a process that
	// stopped (SIGSTOP, a VM paused, a partition): the server ends it and
	// frees its row locks (an owner epoch's, see storage.DB.ActivateAccount)
	// rather than keep the other nodes from taking its accounts for as
	// long as it stays stopped.
	pc.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"] = strconv.FormatInt(idleInTransaction.Milliseconds(), 10)
	if c.StatementTimeout > 0 {
		pc.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(c.StatementTimeout.Milliseconds(), 10)
	}
	if c.netConn != nil {
		pc.ConnConfig.AfterNetConnect = func(_ context.Context, _ *pgconn.Config, conn net.Conn) (net.Conn, error) {
			return c.netConn(conn), nil
		}
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, err
	}
	s := &Store{pool: pool, opTimeout: 30 * time.Second, log: c.Log, poke: make(chan struct{}, 1),
		quit: make(chan struct{}), kept: make(chan struct{}), lost: make(chan struct{})}
	if t := 2*c.StatementTimeout + 5*time.Second; t > s.opTimeout {
		s.opTimeout = t
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	s.shared = c.Shared
	if err = s.lockDatabase(ctx, pc.ConnConfig); err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.lockSetup(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.createTable(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if s.lock == nil {
		return s, nil // no lock, no keeper
	}
	if _, s.gen, err = s.raiseGeneration(ctx, s.lock); err != nil {
		s.Close()
		return nil, err
	}
	s.exclusiveGen.Store(s.gen.exclusive)
	s.cc = pc.ConnConfig
	if !s.setup {
		s.startKeeper()
	}
	return s, nil
}

// setupKey is the advisory lock under which a process sets the database
// up (Open's table, then the caller's schema check, migration and first
// records, until SetupDone): cluster nodes started at once share the
// database, and PostgreSQL's CREATE TABLE IF NOT EXISTS is not safe from
// two sessions at once (one fails on pg_type's unique index).
const setupKey = lockKey + 1

// lockSetup takes setupKey on the lock's session, waiting while another
// process sets the database up, at most until ctx ends. Without advisory
// locks (NoLock) there is nothing to take: createTable copes instead.
func (s *Store) lockSetup(ctx context.Context) error {
	if s.lock == nil {
		return nil
	}
	if _, err := s.lock.Exec(ctx, `SELECT pg_advisory_lock($1)`, setupKey); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("another process is setting the database up (creating its table or migrating it) and did not finish in time: " +
				"start again once it has")
		}
		return fmt.Errorf("setting the database up: %w", err)
	}
	s.setup = true
	return nil
}

// SetupDone releases the set-up lock Open took: the caller has checked
// and completed the database's schema, and other processes may now do
// the same. Close releases it too.
//
// The lock's keeper (relock.go) starts here: until then the caller's set-up
// uses the lock's session, which is not safe from two goroutines at once.
func (s *Store) SetupDone() {
	if !s.setup {
		return
	}
	s.setup = false
	ctx, cancel := s.ctx()
	_, _ = s.lock.Exec(ctx, `SELECT pg_advisory_unlock($1)`, setupKey)
	cancel()
	s.startKeeper()
}

// startKeeper starts the keeper once, unless Close came first.
func (s *Store) startKeeper() {
	s.keepOnce.Do(func() { go s.keep(s.cc) })
}

// createTable creates the table when missing. A server without advisory
// locks may still see another process create it at the same moment: its
// failure (unique_violation on the catalog, duplicate_table) means the
// table is there now, which one more try confirms.
func (s *Store) createTable(ctx context.Context) error {
	const create = `CREATE TABLE IF NOT EXISTS ` + Table + ` (k bytea PRIMARY KEY, v bytea NOT NULL)`
	_, err := s.pool.Exec(ctx, create)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "23505" || pgErr.Code == "42P07") {
		_, err = s.pool.Exec(ctx, create)
	}
	if err != nil {
		return fmt.Errorf("cannot create the table %s: %w", Table, err)
	}
	return nil
}

// lockKey is the advisory lock that makes one process the database's only
// user (a number of our own: "honmaste", the name's first 8 bytes in ASCII).
const lockKey int64 = 0x686f6e6d61737465

// lockDatabase takes the database's advisory lock on a connection of its
// own, held until Close: like Pebble's directory lock, it keeps a second
// server (or an offline command, or a copy) off a database a server uses,
// so that each account keeps one writer. The lock lives as long as that
// session, so every write transaction checks, in the round trip of its
// writes, that the session still holds it (lockCheck; in shared mode,
// that no other process holds it exclusively: sharedLockCheck). A server without
// advisory locks (function undefined), and CockroachDB, whose
// pg_try_advisory_lock always succeeds and locks nothing, are used without
// one (NoLock says why).
//
// In shared mode (Config.Shared, cluster nodes) the lock is taken with
// pg_try_advisory_lock_shared: any number of shared holders, or one
// exclusive holder, never both. Each account still has one writer then
// because the cluster's nodes fence each other per account (owner epochs,
// checked by the store), which the lock cannot do.
func (s *Store) lockDatabase(ctx context.Context, cc *pgx.ConnConfig) error {
	conn, err := pgx.ConnectConfig(ctx, cc.Copy())
	if err != nil {
		return err
	}
	var version string
	if err := conn.QueryRow(ctx, `SELECT version()`).Scan(&version); err != nil {
		conn.Close(ctx)
		return fmt.Errorf("server version: %w", err)
	}
	if strings.Contains(version, "CockroachDB") {
		conn.Close(ctx)
		s.noLock = "CockroachDB has no advisory locks"
		return nil
	}
	var ok bool
	try := `SELECT pg_try_advisory_lock($1), pg_backend_pid()`
	if s.shared {
		try = `SELECT pg_try_advisory_lock_shared($1), pg_backend_pid()`
	}
	var pid int32
	err = conn.QueryRow(ctx, try, lockKey).Scan(&ok, &pid)
	s.lockPID.Store(pid)
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "42883": // undefined_function
		conn.Close(ctx)
		s.noLock = "the server has no advisory locks"
		return nil
	case err != nil:
		conn.Close(ctx)
		return fmt.Errorf("advisory lock: %w", err)
	case !ok:
		inUse := &InUseError{}
		// Who holds it, for the operator's message: a holder that left
		// meanwhile leaves Shared false ("another process").
		var mode string
		if conn.QueryRow(ctx, `SELECT mode FROM pg_locks WHERE locktype = 'advisory' AND granted
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND classid::bigint = $1 AND objid::bigint = $2 AND objsubid = 1 LIMIT 1`,
			lockKey>>32, lockKey&0xffffffff).Scan(&mode) == nil {
			inUse.Shared = mode == "ShareLock"
			inUse.Exclusive = mode == "ExclusiveLock"
		}
		conn.Close(ctx)
		return inUse
	}
	s.lock = conn
	return nil
}

// InUseError is Open's refusal of a database whose advisory lock another
// process holds (errors.Is(err, ErrInUse)), with the kind of lock it
// holds when that could be read: Shared (cluster nodes) or Exclusive (a
// single-node server or an offline command); neither when the holder left
// before it was looked at.
type InUseError struct{ Shared, Exclusive bool }

func (e *InUseError) Error() string {
	switch {
	case e.Shared:
		return ErrInUse.Error() + " (cluster nodes share it)"
	case e.Exclusive:
		return ErrInUse.Error() + " (one process holds it alone)"
	}
	return ErrInUse.Error()
}

// Is makes errors.Is(err, ErrInUse) hold.
func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// NoLock is empty when the store holds the database's lock, and otherwise
// says why nothing keeps a second process off the database.
func (s *Store) NoLock() string { return s.noLock }

// lockCheck fails with a division by zero (SQLSTATE 22012, which aborts the
// transaction) unless the lock is held exclusively and no other process
// has taken it exclusively since this one did: the transaction cannot take
// it in shared mode (only an exclusive holder keeps it out), and the lock
// table's count of exclusive holders (generationTable) is the one this
// process left. A session lock is only ever released by its session's end,
// so that is "the lock session still holds it": if the session ended,
// either nobody holds the lock (the shared lock is granted) or another
// process took it, raising the count. It asks the lock manager for one
// lock and reads one row; it used to read pg_locks, which copies every
// lock of the server (the serializable transactions' predicate locks too)
// under all of the lock manager's partition locks, a large share of
// PostgreSQL's CPU per write that also held the other backends up.
var lockCheck = `SELECT 1/(NOT pg_try_advisory_xact_lock_shared($1)
	AND (SELECT exclusive FROM ` + generationTable + ` WHERE id = 1) IS NOT DISTINCT FROM $2)::int`

// sharedLockCheck is lockCheck in shared mode (cluster nodes): the
// transaction itself holds the lock in shared mode until it ends, and the
// lock table's count of exclusive holders (generationTable) is still the
// one this node found when it took its lock; else it fails as lockCheck
// does. So no process that held the lock exclusively since this node took
// it (a single-node server, an offline command: their writes are not
// fenced by owner epochs) has written beside it, or can while the
// transaction runs; the cluster's nodes fence each other per account.
// That is what the shared lock is for (a read of pg_locks, as lockCheck
// once was, made most of PostgreSQL's CPU per write with three nodes'
// transactions in flight, issue 35 item 7). A node whose lock session is
// gone writes on while no other process took the lock; its keeper takes
// it again.
var sharedLockCheck = `SELECT 1/(pg_try_advisory_xact_lock_shared($1)
	AND (SELECT exclusive FROM ` + generationTable + ` WHERE id = 1) IS NOT DISTINCT FROM $2)::int`

// queueLockCheck queues the lock's check (lockCheck, sharedLockCheck) in
// a write transaction's first round trip; none without a lock. Given a
// Check, it reads that check's row FOR SHARE in the same statement (a
// scalar subquery beside the division), records in *unmet whether it
// holds, and returns true: a cluster node's every write checks one owner
// epoch, and a statement of its own for it cost PostgreSQL a statement's
// work (the extended protocol's messages, a snapshot, an executor's start
// and end) at every write, a good part of what a write costs it more in
// the cluster than on one node (issue 35 item 7, docs/cluster.md). Without
// a lock it queues nothing and returns false: the check goes in a
// statement of its own (queueConditions).
func (s *Store) queueLockCheck(b *pgx.Batch, check *Check, unmet *error) bool {
	var q string
	switch {
	case s.noLock != "":
		return false
	case s.shared:
		q = sharedLockCheck
	default:
		q = lockCheck
	}
	if check == nil {
		b.Queue(q, lockKey, s.exclusiveGen.Load())
		return false
	}
	ok := check.OK
	b.Queue(q+`, (SELECT v FROM `+Table+` WHERE k = $3 FOR SHARE)`, lockKey, s.exclusiveGen.Load(), check.Key).QueryRow(func(row pgx.Row) error {
		var v *[]byte // NULL: no row (v is NOT NULL in the table)
		if err := row.Scan(nil, &v); err != nil {
			return err
		}
		var err error
		if v == nil {
			err = ok(nil, false)
		} else {
			err = ok(*v, true)
		}
		if err != nil && *unmet == nil {
			*unmet = err
		}
		return nil
	})
	return true
}

// divisionByZero is SQLSTATE 22012, lockCheck's failure.
const divisionByZero = "22012"

// Healthy is nil while the store holds the database's lock: otherwise
// ErrUnavailable while it takes it again, ErrLockLost once it is lost for
// good (relock.go).
func (s *Store) Healthy() error {
	switch s.state.Load() {
	case lockAway:
		return fmt.Errorf("%w: the session holding the database lock is gone; taking the lock again", ErrUnavailable)
	case lockGone:
		why, _ := s.why.Load().(string)
		return fmt.Errorf("%w: %s", ErrLockLost, why)
	}
	return nil
}

// Redact returns a connection URL or key=value string without its
// password, for logs and messages (whether it parses or not).
func Redact(conn string) string {
	conn = urlPassword.ReplaceAllString(conn, "${1}xxxxx@")
	return kvPassword.ReplaceAllString(conn, "${1}xxxxx")
}

var (
	urlPassword = regexp.MustCompile(`(://[^:/@]*:)[^/]*@`)
	kvPassword  = regexp.MustCompile(`(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)
)

// Close closes the pool and releases the database's lock (a second Close
// does nothing). It unlocks explicitly before it ends the lock's session: a session's locks go only
// when its backend exits, a moment after the client has gone, so a server
// restarted at once (or an offline command run right after) could find
// the database still "in use". pg_advisory_unlock_all answers once the
// lock is released; if it cannot run, the session's end releases it.
func (s *Store) Close() {
	s.closeOnce.Do(s.close)
}

func (s *Store) close() {
	close(s.quit)
	s.keepOnce.Do(func() { close(s.kept) }) // a keeper that never started
	<-s.kept                                // the keeper has let go of the lock's session
	s.pool.Close()
	if s.lock != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = s.lock.Exec(ctx, `SELECT pg_advisory_unlock_all()`)
		s.lock.Close(ctx) // the session ends, and its lock with it
	}
}

func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.opTimeout)
}

// Get calls fn with the value of key; ErrNotFound when there is none.
func (s *Store) Get(key []byte, fn func(v []byte) error) error {
	ctx, cancel := s.ctx()
	defer cancel()
	var v []byte
	err := s.pool.QueryRow(ctx, `SELECT v FROM `+Table+` WHERE k = $1`, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	return fn(v)
}

// Scan calls fn, in key order, with every row whose key is in [lo, hi)
// (hi nil: no upper bound) until fn errs. It reads a page at a time and
// runs fn with no connection held, so fn may read the store itself; the
// pages are separate statements, so a scan is not one snapshot: a row
// written meanwhile may or may not be seen (see storage/postgres.go).
func (s *Store) Scan(lo, hi []byte, fn func(k, v []byte) error) error {
	if lo == nil {
		lo = []byte{} // bytea's smallest value; NULL would match nothing
	}
	first := true
	for {
		keys, vals, full, err := s.page(lo, hi, first)
		if err != nil {
			return err
		}
		for i := range keys {
			if err := fn(keys[i], vals[i]); err != nil {
				return err
			}
		}
		if !full {
			return nil
		}
		lo, first = keys[len(keys)-1], false
	}
}

// page reads the rows from lo (inclusive on the first page, exclusive
// after) up to hi; full says a next page may exist.
func (s *Store) page(lo, hi []byte, inclusive bool) (keys, vals [][]byte, full bool, err error) {
	op := ">"
	if inclusive {
		op = ">="
	}
	q := `SELECT k, v FROM ` + Table + ` WHERE k ` + op + ` $1`
	args := []any{lo}
	if hi != nil {
		q += ` AND k < $2`
		args = append(args, hi)
	}
	q += ` ORDER BY k LIMIT ` + strconv.Itoa(pageRows)
	ctx, cancel := s.ctx()
	defer cancel()
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, nil, false, err
	}
	defer rows.Close()
	size := 0
	for rows.Next() {
		var k, v []byte
		if err := rows.Scan(&k, &v); err != nil {
			return nil, nil, false, err
		}
		keys, vals = append(keys, k), append(vals, v)
		if size += len(k) + len(v); size >= pageBytes {
			return keys, vals, true, nil // the rest of the page is read again from here
		}
	}
	return keys, vals, len(keys) == pageRows, rows.Err()
}

// Write is one set (Value, possibly empty) or delete of a key.
type Write struct {
	Key, Value []byte
	Delete     bool
}

// Apply writes ws in one SERIALIZABLE transaction (a later write of a key
// wins), retried on serialization failures and deadlocks, and returns once
// its COMMIT succeeded with synchronous_commit on. A failure wraps
// ErrNotCommitted or ErrOutcomeUnknown (and ErrLockLost when the database's
// lock is gone).
//
// It retries through crdb.ExecuteCtx, which runs the whole transaction
// again, and not crdbpgxv5.ExecuteTx: that one retries inside the
// transaction through a savepoint and ignores the COMMIT's error, both
// right on CockroachDB (where RELEASE SAVEPOINT commits) and wrong on
// PostgreSQL, where a serialization failure needs a new snapshot (a new
// transaction) and the COMMIT is where SSI reports one and where a lost
// connection leaves the outcome unknown: ignoring it would acknowledge a
// write that may never have committed.
func (s *Store) Apply(ws []Write) error { return s.ApplyIf(ws, nil) }

// Conditions are what ApplyIf checks inside its transaction, in the round
// trip of its writes: unless every one holds, the transaction rolls back
// and nothing is written. A key must not be both in ws and in New or
// Swaps.
type Conditions struct {
	// Checks read their rows locked FOR SHARE (a concurrent writer of one
	// of them waits for the commit, or this transaction fails to
	// serialize and runs again) and pass them to their function.
	Checks []Check
	// New rows are inserted only where their key is absent (INSERT ... ON
	// CONFLICT DO NOTHING); one that exists fails with a ConflictError.
	New []Write
	// Swaps set a row only where it holds Old (or is absent, when
	// AbsentOK); otherwise they fail with a ConflictError.
	Swaps []Swap
	// Counts are kept counts' operations, applied in order after the
	// other conditions (Sets first, then member changes).
	Counts []CountOp
}

// CountOp is one operation on kept counts (storage/counts.go): a count
// is 8 bytes big-endian, absent is zero, and one that becomes zero is
// deleted. Set stores Delta as Key's count. Otherwise Key's count gets
// Delta added (or becomes 0, Reset; with Floor, Delta < 0 takes a count
// above zero down to zero at most and leaves one at or below zero as it
// is); when it crosses from <= 0 to > 0 every count of Sets gains one,
// from > 0 to <= 0 loses one.
type CountOp struct {
	Key               []byte
	Delta             int64
	Set, Reset, Floor bool
	Sets              [][]byte
}

// Check is one row a conditional write depends on: OK gets its value
// (found false when there is no row) and fails the transaction by
// returning an error. It may run more than once (a retried transaction).
type Check struct {
	Key []byte
	OK  func(v []byte, found bool) error
}

// Swap is a compare-and-set of one row.
type Swap struct {
	Key, Old, New []byte
	AbsentOK      bool
}

// ConflictError is ApplyIf's failure when a New row's key existed or a
// Swap's row did not hold Old: nothing was written.
type ConflictError struct{ Key []byte }

func (e *ConflictError) Error() string { return fmt.Sprintf("pgkv: conflict on key %q", e.Key) }

func (c *Conditions) none() bool {
	return c == nil || len(c.Checks) == 0 && len(c.New) == 0 && len(c.Swaps) == 0 && len(c.Counts) == 0
}

// ApplyIf is Apply, committed only if every condition of c holds (c nil:
// none). A condition that does not hold fails it with ErrNotCommitted
// and the check's error or a *ConflictError.
func (s *Store) ApplyIf(ws []Write, c *Conditions) error {
	sets, setVals, dels := collapse(ws)
	if len(sets) == 0 && len(dels) == 0 && c.none() {
		return nil
	}
	ctx, cancel := s.ctx()
	defer cancel()
	return s.retry(ctx, func(ctx context.Context) error { return s.attempt(ctx, sets, setVals, dels, c) })
}

// retry runs attempt through crdb.ExecuteCtx until it succeeds, fails
// otherwise than by a serialization failure, or runs out of retries or
// time. Every error of attempt and backoff carries ErrNotCommitted or
// ErrOutcomeUnknown; ExecuteCtx adds one error of its own, a bare ctx.Err()
// checked before each attempt. That check runs only before the first
// attempt (nothing sent) or after an attempt that failed with a retryable
// SQLSTATE, which attempt reports only as ErrNotCommitted (the server
// rolled the transaction back, whether it said so at a write or at the
// COMMIT; an unanswered COMMIT is ErrOutcomeUnknown and never retried): so
// that error is "not committed", and is marked so here rather than left
// unclassified, which storage would report as uncertain.
func (s *Store) retry(ctx context.Context, attempt func(context.Context) error) error {
	tries := 0
	err := crdb.ExecuteCtx(crdb.WithMaxRetries(ctx, maxRetries), func(ctx context.Context, _ ...any) error {
		if tries++; tries > 1 {
			s.retries.Add(1)
			if err := backoff(ctx, tries-1); err != nil {
				return err
			}
		}
		return retryDeadlock(attempt(ctx))
	})
	if err != nil && !errors.Is(err, ErrNotCommitted) && !errors.Is(err, ErrOutcomeUnknown) &&
		(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return fmt.Errorf("%w: %w", ErrNotCommitted, err)
	}
	return err
}

// retryDeadlock presents a deadlock (40P01) to crdb.ExecuteCtx, which
// retries only 40001, as a serialization failure: the server rolled the
// transaction back to break the cycle, and running it again is right.
// Sorted keys (collapse) make deadlocks between batches rare; they remain
// possible with other users of the table (a copy, an operator's SQL).
func retryDeadlock(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == deadlockDetected {
		return retryableError{err}
	}
	return err
}

// deadlockDetected is SQLSTATE 40P01.
const deadlockDetected = "40P01"

// retryableError is an error crdb.ExecuteCtx retries: it finds the first
// error with an SQLState method in the chain and retries on 40001.
type retryableError struct{ err error }

func (e retryableError) Error() string    { return e.err.Error() }
func (e retryableError) Unwrap() error    { return e.err }
func (e retryableError) SQLState() string { return "40001" }

// backoff waits before retry n (1, 2, ...): a random time up to 1ms
// doubled per retry, at most 100ms, so that writers that met on a key do
// not meet again at once (crdb.ExecuteCtx retries immediately).
func backoff(ctx context.Context, n int) error {
	ceiling := time.Millisecond << min(n, 7)
	t := time.NewTimer(min(time.Duration(rand.Int64N(int64(ceiling))), 100*time.Millisecond))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrNotCommitted, ctx.Err())
	}
}

// Retries counts the transactions run again after a serialization failure
// since Open.
func (s *Store) Retries() int64 { return s.retries.Load() }

// attempt runs the transaction once. Its errors keep the server's SQLSTATE
// (wrapped), so that ExecuteCtx retries a 40001.
func (s *Store) attempt(ctx context.Context, sets, setVals, dels [][]byte, c *Conditions) error {
	if err := s.gate(); err != nil {
		return err
	}
	var b pgx.Batch
	b.BeginTx(pgx.TxOptions{IsoLevel: pgx.Serializable}) // in the round trip of the writes (sendTx)
	pid := s.lockPID.Load()
	var unmet error // the first condition that does not hold
	var check *Check
	if c != nil && len(c.Checks) == 1 {
		check = &c.Checks[0]
	}
	if s.queueLockCheck(&b, check, &unmet) { // the check went with the lock's
		rest := *c
		rest.Checks = nil
		c = &rest
	}
	if !c.none() {
		s.queueConditions(&b, c, &unmet)
	}
	if len(sets) > 0 {
		b.Queue(`INSERT INTO `+Table+` (k, v) SELECT * FROM unnest($1::bytea[], $2::bytea[]) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, sets, setVals)
	}
	if len(dels) > 0 {
		where, arg := keyIn(dels)
		b.Queue(`DELETE FROM `+Table+` WHERE `+where, arg)
	}
	tx, err := s.sendTx(ctx, &b, pid)       // one round trip for BEGIN and all the writes
	defer tx.Rollback(context.Background()) // a no-op once committed
	if err != nil {
		return err
	}
	if unmet != nil { // rolled back by the deferred Rollback
		return fmt.Errorf("%w: %w", ErrNotCommitted, unmet)
	}
	if s.BeforeCommit != nil {
		if err := s.BeforeCommit(ctx, tx.Conn().PgConn().PID()); err != nil {
			return fmt.Errorf("%w: %w", ErrNotCommitted, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return commitFailure(err)
	}
	return nil
}

// keyIn is the condition of a statement on the rows of keys (not empty),
// as $1, and its argument: k = $1 for one key, k = ANY($1::bytea[]) for
// more. The one-key form is what a write usually has (one account's owner
// record to check, a record to delete), and PostgreSQL plans it once per
// session: after five executions of a prepared statement it keeps a
// generic plan unless that plan looks dearer than the custom ones, and for
// = ANY of a parameter it assumes an array of ten elements, so a statement
// always given one key was planned again at every execution. In the
// cluster, where every write checks its owner epoch, that planning was
// about 45 µs of PostgreSQL's CPU per drop (issue 35 item 7; docs/cluster.md).
// The session's plan_cache_mode = force_generic_plan would have fixed it
// too, but for every statement, the range scans among them, whose custom
// plans see their bounds; this changes only the statements that need it.
func keyIn(keys [][]byte) (where string, arg any) {
	if len(keys) == 1 {
		return `k = $1`, keys[0]
	}
	return `k = ANY($1::bytea[])`, keys
}

// queueConditions queues c's statements, in the round trip of the
// writes; each records in *unmet the first condition that does not hold.
// Their results are read in order as the batch closes; a failure of the
// server (a serialization failure) fails the batch instead.
func (s *Store) queueConditions(b *pgx.Batch, c *Conditions, unmet *error) {
	fail := func(err error) {
		if *unmet == nil {
			*unmet = err
		}
	}
	if len(c.Checks) > 0 {
		keys := make([][]byte, len(c.Checks))
		for i := range c.Checks {
			keys[i] = c.Checks[i].Key
		}
		where, arg := keyIn(keys)
		b.Queue(`SELECT k, v FROM `+Table+` WHERE `+where+` ORDER BY k FOR SHARE`, arg).Query(func(rows pgx.Rows) error {
			found := make(map[string][]byte, len(keys))
			for rows.Next() {
				var k, v []byte
				if err := rows.Scan(&k, &v); err != nil {
					return err
				}
				found[string(k)] = v
			}
			if err := rows.Err(); err != nil {
				return err
			}
			for _, ch := range c.Checks {
				v, ok := found[string(ch.Key)]
				if err := ch.OK(v, ok); err != nil {
					fail(err)
				}
			}
			return nil
		})
	}
	if len(c.New) > 0 {
		keys, vals := make([][]byte, len(c.New)), make([][]byte, len(c.New))
		for i, w := range c.New {
			keys[i], vals[i] = w.Key, w.Value
			if vals[i] == nil {
				vals[i] = []byte{}
			}
		}
		b.Queue(`INSERT INTO `+Table+` (k, v) SELECT * FROM unnest($1::bytea[], $2::bytea[]) ON CONFLICT (k) DO NOTHING RETURNING k`,
			keys, vals).Query(func(rows pgx.Rows) error {
			inserted := make(map[string]bool, len(keys))
			for rows.Next() {
				var k []byte
				if err := rows.Scan(&k); err != nil {
					return err
				}
				inserted[string(k)] = true
			}
			if err := rows.Err(); err != nil {
				return err
			}
			for _, k := range keys {
				if !inserted[string(k)] {
					fail(&ConflictError{Key: k})
				}
			}
			return nil
		})
	}
	for _, sw := range c.Swaps {
		q := `UPDATE ` + Table + ` SET v = $2 WHERE k = $1 AND v = $3 RETURNING k`
		if sw.AbsentOK {
			q = `INSERT INTO ` + Table + ` AS t (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v WHERE t.v = $3 RETURNING k`
		}
		nu, old := sw.New, sw.Old
		if nu == nil {
			nu = []byte{}
		}
		if old == nil {
			old = []byte{}
		}
		key := sw.Key
		b.Queue(q, key, nu, old).Exec(func(ct pgconn.CommandTag) error {
			if ct.RowsAffected() != 1 {
				fail(&ConflictError{Key: key})
			}
			return nil
		})
	}
	queueCounts(b, c.Counts)
}

// countValue reads a count's bytea as a bigint (8 bytes big-endian).
const countValue = `('x' || encode(%s, 'hex'))::bit(64)::bigint`

// countMember is one member change of CountOp in one statement: the
// member's row is locked and read, written back (deleted at zero), and
// the step it makes is added to every count of $4 ($2 Delta, $3 Reset,
// $5 Floor). A count of $4 that the step takes to zero is deleted as the
// member's is (absent is zero, and Each visits no zero; Pebble's
// applyCounts deletes it too): sdel deletes the rows that hold minus the
// step, and the INSERT adds the step to the others. The two touch
// disjoint rows (one statement may not change a row twice), and sdel
// reads the rows as the INSERT's ON CONFLICT would, so the statement
// count per write stays one; a row another transaction changed or inserted
// after this one's snapshot fails to serialize in either, as before.
var countMember = `WITH cur AS (SELECT ` + fmt.Sprintf(countValue, "v") + ` AS o FROM ` + Table + ` WHERE k = $1 FOR UPDATE),
 nu AS (SELECT o, CASE WHEN $3::bool THEN 0 WHEN $5::bool AND o <= 0 THEN o WHEN $5::bool THEN greatest(o + $2::bigint, 0)
  ELSE o + $2::bigint END AS n FROM (SELECT coalesce((SELECT o FROM cur), 0) AS o) x),
 put AS (INSERT INTO ` + Table + ` (k, v) SELECT $1, int8send(n) FROM nu WHERE n <> 0 ON CONFLICT (k) DO UPDATE SET v = excluded.v),
 del AS (DELETE FROM ` + Table + ` WHERE k = $1 AND (SELECT n FROM nu) = 0),
 step AS (SELECT CASE WHEN o <= 0 AND n > 0 THEN 1 WHEN o > 0 AND n <= 0 THEN -1 ELSE 0 END AS s FROM nu),
 sdel AS (DELETE FROM ` + Table + ` WHERE k = ANY($4::bytea[]) AND (SELECT s FROM step) <> 0
  AND v = int8send(-(SELECT s FROM step)::bigint) RETURNING k)
INSERT INTO ` + Table + ` AS t (k, v) SELECT sk, int8send(step.s::bigint) FROM unnest($4::bytea[]) AS sk, step
 WHERE step.s <> 0 AND sk NOT IN (SELECT k FROM sdel)
 ON CONFLICT (k) DO UPDATE SET v = int8send(` + fmt.Sprintf(countValue, "t.v") + ` + ` + fmt.Sprintf(countValue, "excluded.v") + `)`

// queueCounts queues the count operations, in order. The Sets come
// first and go in two statements (values, zeros): a count set twice keeps
// its last value only, since one INSERT ... ON CONFLICT DO UPDATE may not
// change a row twice and a zero's DELETE runs after every INSERT. Keys are
// sorted, as collapse sorts the writes, so that two batches lock their
// rows in one order.
func queueCounts(b *pgx.Batch, ops []CountOp) {
	last := map[string]int64{}
	for _, op := range ops {
		if op.Set {
			last[string(op.Key)] = op.Delta
		}
	}
	var setKeys, setVals, zeroKeys [][]byte
	for _, k := range slices.Sorted(maps.Keys(last)) {
		if n := last[k]; n == 0 {
			zeroKeys = append(zeroKeys, []byte(k))
		} else {
			setKeys = append(setKeys, []byte(k))
			setVals = append(setVals, binary.BigEndian.AppendUint64(nil, uint64(n)))
		}
	}
	if len(setKeys) > 0 {
		b.Queue(`INSERT INTO `+Table+` (k, v) SELECT * FROM unnest($1::bytea[], $2::bytea[]) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, setKeys, setVals)
	}
	if len(zeroKeys) > 0 {
		where, arg := keyIn(zeroKeys)
		b.Queue(`DELETE FROM `+Table+` WHERE `+where, arg)
	}
	for _, op := range ops {
		if op.Set {
			continue
		}
		sets := op.Sets
		if sets == nil {
			sets = [][]byte{}
		}
		b.Queue(countMember, op.Key, op.Delta, op.Reset, sets, op.Floor)
	}
}

// Update reads key's row locked FOR UPDATE, calls fn with it (found false
// when there is none) and writes what fn returns under key (nil: nothing),
// in one READ COMMITTED transaction (retried like Apply's; fn may run more
// than once). The row lock orders it with every other Update of key and
// every ApplyIf that checks key (FOR SHARE): a writer that checked key
// first commits first (this waits for it), and one that checks it later
// waits for this commit, then fails to serialize (its transaction is
// SERIALIZABLE) and runs again, reading what fn wrote.
//
// Why not SERIALIZABLE, as Apply's transactions are: reading one row
// under its lock needs no snapshot of anything else, and a serializable
// transaction takes part in the predicate-lock checks of every other one
// it overlaps. Owner epochs are raised by Update (storage.ActivateAccount),
// often many at once (a cluster's start, a node's accounts taken over):
// under SERIALIZABLE they failed to serialize against each other and
// against the writes around them, page locks making accounts that share
// nothing conflict (a PostgreSQL log of one bench/cluster run: 255
// serialization failures in the first two seconds of 64 accounts' set-up,
// none after; issue 35 item 7).
//
// A row that is absent has nothing to lock, so two Updates could both find
// it absent: the insert is ON CONFLICT DO NOTHING, and one that inserted
// nothing runs again (and finds the row the other wrote).
func (s *Store) Update(key []byte, fn func(old []byte, found bool) (nu []byte, err error)) error {
	ctx, cancel := s.ctx()
	defer cancel()
	return s.retry(ctx, func(ctx context.Context) error {
		if err := s.gate(); err != nil {
			return err
		}
		var b pgx.Batch
		b.BeginTx(pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
		pid := s.lockPID.Load()
		s.queueLockCheck(&b, nil, nil)
		var old []byte
		found := false
		b.Queue(`SELECT v FROM `+Table+` WHERE k = $1 FOR UPDATE`, key).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				found = true
				if err := rows.Scan(&old); err != nil {
					return err
				}
			}
			return rows.Err()
		})
		tx, err := s.sendTx(ctx, &b, pid)
		defer tx.Rollback(context.Background())
		if err != nil {
			return err
		}
		nu, err := fn(old, found)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrNotCommitted, err)
		}
		if nu != nil {
			q := `UPDATE ` + Table + ` SET v = $2 WHERE k = $1`
			if !found {
				q = `INSERT INTO ` + Table + ` (k, v) VALUES ($1, $2) ON CONFLICT (k) DO NOTHING`
			}
			ct, err := tx.Exec(ctx, q, key, nu)
			if err != nil {
				return fmt.Errorf("%w: %w", ErrNotCommitted, err)
			}
			if ct.RowsAffected() != 1 { // inserted meanwhile by another Update
				return fmt.Errorf("%w: %w", ErrNotCommitted, retryableError{fmt.Errorf("pgkv: key %q was written by another transaction meanwhile", key)})
			}
		}
		if s.BeforeCommit != nil {
			if err := s.BeforeCommit(ctx, tx.Conn().PgConn().PID()); err != nil {
				return fmt.Errorf("%w: %w", ErrNotCommitted, err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			return commitFailure(err)
		}
		return nil
	})
}

// sendFailure classifies the failure of a batch of statements sent before
// COMMIT (lockCheck's for the lock session pid): nothing was committed.
// lockCheck's division by zero means that session no longer holds the
// lock: the keeper takes it again (relock.go), and the commit can be tried
// again then.
func (s *Store) sendFailure(err error, pid int32) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == divisionByZero { // only lockCheck divides
		if s.lockPID.Load() == pid {
			s.state.CompareAndSwap(lockHeld, lockAway)
		}
		s.wake()
		return fmt.Errorf("%w: %w: the database lock's session no longer holds it: %w", ErrNotCommitted, ErrUnavailable, err)
	}
	if Unavailable(err) {
		s.wake()
		return fmt.Errorf("%w: %w: %w", ErrNotCommitted, ErrUnavailable, err)
	}
	return fmt.Errorf("%w: %w", ErrNotCommitted, err)
}

// sendTx sends b, which begins a transaction (pgx.Batch.BeginTx), on a
// connection of the pool, and reads its results: BEGIN goes in the round
// trip of the transaction's first statements instead of one of its own.
// A round trip costs the server and PostgreSQL more CPU than the
// statements' own work (system calls, wake-ups): a BEGIN of its own cost
// the server about a fifth more CPU per write (docs/postgres.md). The
// transaction is returned even when the batch failed, for the caller to
// roll back, which gives the connection back to the pool (a transaction
// that never began, as when no connection was had, is closed already and
// its Rollback does nothing). A failure is sendFailure's: COMMIT was not
// sent, so nothing was committed.
func (s *Store) sendTx(ctx context.Context, b *pgx.Batch, pid int32) (pgx.Tx, error) {
	br := s.pool.SendBatch(ctx, b)
	tx := br.Tx()
	if err := br.Close(); err != nil {
		return tx, s.sendFailure(err, pid)
	}
	return tx, nil
}

// commitFailure says what a failed COMMIT means. The server's answer of
// class 40 (transaction rollback, 40001 included) or a rollback in place of
// the commit means nothing committed; a COMMIT that never left the client
// neither. Anything else (the connection lost after sending it, a timeout
// while waiting, a FATAL from a terminated session) may hide a commit, and
// so does 40003 (statement_completion_unknown), the one class-40 code that
// says the server itself does not know: CockroachDB answers an ambiguous
// commit with it.
func commitFailure(err error) error {
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && strings.HasPrefix(pgErr.Code, "40") && pgErr.Code != statementCompletionUnknown,
		errors.Is(err, pgx.ErrTxCommitRollback),
		pgconn.SafeToRetry(err):
		return fmt.Errorf("%w: commit: %w", ErrNotCommitted, err)
	}
	return fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
}

// statementCompletionUnknown is SQLSTATE 40003: the outcome is unknown.
const statementCompletionUnknown = "40003"

// collapse keeps the last write of each key, as sets and deletes in two
// disjoint lists (an INSERT ... ON CONFLICT may not touch a row twice),
// each in key order: concurrent transactions then lock their rows in one
// order, which avoids deadlocks between them.
func collapse(ws []Write) (sets, setVals, dels [][]byte) {
	last := make(map[string]int, len(ws))
	for i := range ws {
		last[string(ws[i].Key)] = i
	}
	for i := range ws {
		if last[string(ws[i].Key)] != i {
			continue
		}
		switch {
		case ws[i].Delete:
			dels = append(dels, ws[i].Key)
		case ws[i].Value == nil:
			sets, setVals = append(sets, ws[i].Key), append(setVals, []byte{}) // NULL is not an empty value
		default:
			sets, setVals = append(sets, ws[i].Key), append(setVals, ws[i].Value)
		}
	}
	slices.SortFunc(dels, bytes.Compare)
	order := make([]int, len(sets))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(sets[a], sets[b]) })
	sortedSets, sortedVals := make([][]byte, len(sets)), make([][]byte, len(sets))
	for i, j := range order {
		sortedSets[i], sortedVals[i] = sets[j], setVals[j]
	}
	return sortedSets, sortedVals, dels
}

// Count returns the number of rows (for storage copy's checks).
func (s *Store) Count() (int64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM `+Table).Scan(&n)
	return n, err
}

// SizeBytes is the table's size on disk, indexes included (0 when the
// server cannot tell, or does not within a second: metrics read it, and a
// scrape must not wait for a database that is down).
func (s *Store) SizeBytes() uint64 {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var n int64
	if err := s.pool.QueryRow(ctx, `SELECT pg_total_relation_size($1::regclass)`, Table).Scan(&n); err != nil || n < 0 {
		return 0
	}
	return uint64(n)
}

// Plan is how one session planned one of its prepared statements: the
// executions it planned afresh (Custom) and those that reused the
// statement's generic plan (Generic).
type Plan struct {
	Statement       string
	Generic, Custom int64
}

// Plans returns how the pooled session it gets planned the statements it
// prepared (pgx prepares every statement it runs; for tests and
// diagnostics: a statement that is planned afresh at every execution costs
// PostgreSQL's CPU at every write).
func (s *Store) Plans() ([]Plan, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[Plan])
}

// BackendPID returns the process id of the PostgreSQL backend of the
// pooled session it gets (for tests and benchmarks: with one session in
// the pool, its CPU time is the database server's cost of this store's
// statements, when the server runs on the same machine).
func (s *Store) BackendPID() (int32, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	var pid int32
	err := s.pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid)
	return pid, err
}

// Show returns a setting as a pooled session sees it (for tests and
// diagnostics).
func (s *Store) Show(name string) (string, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	var v string
	err := s.pool.QueryRow(ctx, `SELECT current_setting($1)`, name).Scan(&v)
	return v, err
}
