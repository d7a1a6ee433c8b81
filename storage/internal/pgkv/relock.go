package pgkv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Taking the lock again. The database's advisory lock lives as long as the
// session that took it, so a PostgreSQL restart (or a terminated session)
// ends it. The store then does not give up: a keeper goroutine notices
// (it checks the lock session every lockProbeEvery, and at once when a
// commit fails to reach the database or finds the lock gone), refuses
// commits meanwhile with ErrUnavailable (nothing written, try again), and
// takes the lock again as soon as the database answers, on a new session.
//
// What it must rule out is another process having used the database while
// the lock was away: the in-memory state of this one (its live accounts,
// its caches) would then be stale. Every process that takes the lock
// raises a counter of its kind in the lock table (generationTable: one
// counter for exclusive holders, single-node servers and offline commands,
// and one for shared holders, cluster nodes) and remembers the values it
// left. Taking the lock again, it raises its counter again and finds the
// values before that raise: a process that holds the lock exclusively
// expects both counters as it left them, and a cluster node expects the
// exclusive one (the other nodes of its cluster take the shared lock all
// the time, and owner epochs keep their writes and its own apart). Any
// other value means another process had the database meanwhile, and the
// lock is lost for good (ErrLockLost, Lost): the process must restart. So
// is a lock another process holds when the keeper comes to take it.

// ErrUnavailable marks a failure to reach the database (it is down,
// restarting, or the lock is being taken again): nothing was written, and
// the same request can be tried again in a moment.
var ErrUnavailable = errors.New("pgkv: the database cannot be reached")

// generationTable holds the lock's counters (one row, id 1): how many
// times a process took the lock exclusively, and how many times shared.
// It is not part of the data (a dump of Table leaves it out, a copy does
// not carry it).
const generationTable = "honmaster_lock"

// Lock states (Store.state).
const (
	lockHeld int32 = iota // the lock session holds the lock
	lockAway              // it does not: the keeper is taking the lock again
	lockGone              // another process had the database: lost for good
)

// Timing of the keeper: the lock session is checked every lockProbeEvery
// (one small query), a check waits lockProbeTimeout at most, and attempts
// to take the lock again are spaced by retakePause (doubled up to
// retakePauseMax while the database stays away).
const (
	lockProbeEvery   = time.Second
	lockProbeTimeout = 2 * time.Second
	retakePause      = 50 * time.Millisecond
	retakePauseMax   = 400 * time.Millisecond
)

// generation is what a process left in the lock table when it took the
// lock.
type generation struct{ exclusive, shared int64 }

// raiseGeneration raises this store's counter in the lock table, on the
// lock's session, and returns the values before and after.
func (s *Store) raiseGeneration(ctx context.Context, conn *pgx.Conn) (before, after generation, err error) {
	var ex, sh int64 = 1, 0
	if s.shared {
		ex, sh = 0, 1
	}
	// Two nodes starting at once on a new database may both create the
	// table: PostgreSQL can refuse the second CREATE TABLE IF NOT EXISTS
	// with a unique violation (23505) on its catalog; the table exists
	// then.
	var pgErr *pgconn.PgError
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+generationTable+` (id int PRIMARY KEY, exclusive bigint NOT NULL, shared bigint NOT NULL)`); err != nil &&
		!(errors.As(err, &pgErr) && (pgErr.Code == "23505" || pgErr.Code == "42P07")) {
		return before, after, fmt.Errorf("create table %s: %w", generationTable, err)
	}
	err = conn.QueryRow(ctx, `INSERT INTO `+generationTable+` AS t VALUES (1, $1, $2)
		ON CONFLICT (id) DO UPDATE SET exclusive = t.exclusive + $1, shared = t.shared + $2 RETURNING exclusive, shared`,
		ex, sh).Scan(&after.exclusive, &after.shared)
	if err != nil {
		return before, after, fmt.Errorf("lock generation: %w", err)
	}
	return generation{after.exclusive - ex, after.shared - sh}, after, nil
}

// gate refuses a transaction, before anything is sent, while the lock is
// away or gone.
func (s *Store) gate() error {
	switch s.state.Load() {
	case lockAway:
		s.wake()
		return fmt.Errorf("%w: %w: the database lock is being taken again", ErrNotCommitted, ErrUnavailable)
	case lockGone:
		return fmt.Errorf("%w: %w", ErrNotCommitted, ErrLockLost)
	}
	return nil
}

// wake asks the keeper to check the lock session now (it does not block).
func (s *Store) wake() {
	select {
	case s.poke <- struct{}{}:
	default:
	}
}

// Lost is closed once the lock is lost for good (another process had the
// database while it was away): the process must restart.
func (s *Store) Lost() <-chan struct{} { return s.lost }

// Done is closed once Close has begun.
func (s *Store) Done() <-chan struct{} { return s.quit }

// keep is the keeper: it owns the lock's session from Open until Close.
func (s *Store) keep(cc *pgx.ConnConfig) {
	defer close(s.kept)
	t := time.NewTicker(lockProbeEvery)
	defer t.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
		case <-s.poke:
		}
		if s.holds() {
			s.state.CompareAndSwap(lockAway, lockHeld)
			continue
		}
		s.state.Store(lockAway)
		if s.log != nil {
			s.log("storage: the PostgreSQL session holding the database lock is gone; commits are refused (nothing written) until the lock is taken again")
		}
		start := time.Now()
		if !s.retake(cc) {
			return
		}
		if s.log != nil {
			s.log("storage: the database lock was taken again; commits accepted", "after", time.Since(start).Round(time.Millisecond))
		}
	}
}

// holds reports whether the lock session still holds the lock.
func (s *Store) holds() bool {
	ctx, cancel := context.WithTimeout(context.Background(), lockProbeTimeout)
	defer cancel()
	var n int
	err := s.lock.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND classid::bigint = $1 AND objid::bigint = $2 AND objsubid = 1 AND granted`,
		lockKey>>32, lockKey&0xffffffff).Scan(&n)
	return err == nil && n > 0
}

// retake takes the lock again on a new session, once the database answers:
// true when it holds it again, false when the store closed or the lock is
// lost for good (then Lost is closed).
func (s *Store) retake(cc *pgx.ConnConfig) bool {
	old := s.lockPID.Load()
	closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
	s.lock.Close(closeCtx)
	cancel()
	pause := retakePause
	for {
		select {
		case <-s.quit:
			s.lock = nil
			return false
		case <-time.After(pause):
		}
		pause = min(2*pause, retakePauseMax)
		if h := s.BeforeRetake.Load(); h != nil {
			(*h)()
		}
		ok, err := s.retakeOnce(cc, old)
		switch {
		case ok:
			return true
		case err != nil:
			s.lock = nil
			s.why.Store(err.Error())
			s.state.Store(lockGone)
			close(s.lost)
			if s.log != nil {
				s.log("storage: the database lock is lost for good; restart", "why", err)
			}
			return false
		}
	}
}

// errTakenMeanwhile is retakeOnce's finding that another process had the
// database while the lock was away.
var errTakenMeanwhile = errors.New("another process used the database while this one's lock was away")

// retakeOnce tries once: ok when the lock is held again (s.lock is the new
// session), a nil error when the database is not back yet (try again), and
// an error when the lock is lost for good.
func (s *Store) retakeOnce(cc *pgx.ConnConfig, old int32) (ok bool, lost error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cc.Copy())
	if err != nil {
		return false, nil
	}
	fail := func(lost error) (bool, error) {
		conn.Close(ctx)
		return false, lost
	}
	try := `SELECT pg_try_advisory_lock($1), pg_backend_pid()`
	if s.shared {
		try = `SELECT pg_try_advisory_lock_shared($1), pg_backend_pid()`
	}
	var got bool
	var pid int32
	if err := conn.QueryRow(ctx, try, lockKey).Scan(&got, &pid); err != nil {
		return fail(nil)
	}
	if !got {
		// Held by another process, unless it is this one's old session
		// still on its way out (a terminated backend ends a moment later).
		var others int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> $3
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND classid::bigint = $1 AND objid::bigint = $2 AND objsubid = 1`,
			lockKey>>32, lockKey&0xffffffff, old).Scan(&others); err != nil || others == 0 {
			return fail(nil)
		}
		return fail(fmt.Errorf("%w (%d other sessions hold it)", errTakenMeanwhile, others))
	}
	before, after, err := s.raiseGeneration(ctx, conn)
	if err != nil {
		return fail(nil)
	}
	if before.exclusive != s.gen.exclusive || !s.shared && before.shared != s.gen.shared {
		return fail(fmt.Errorf("%w (lock generation %d/%d, this process left %d/%d)", errTakenMeanwhile,
			before.exclusive, before.shared, s.gen.exclusive, s.gen.shared))
	}
	s.gen = after
	s.exclusiveGen.Store(after.exclusive)
	s.lock = conn
	s.lockPID.Store(pid)
	// The pool's connections died with the old server: new ones, at once,
	// rather than one failed request per dead connection.
	s.pool.Reset()
	s.state.Store(lockHeld)
	return true, nil
}

// Unavailable reports whether err says the database could not be reached
// or went away (a connection refused or lost, the server shutting down or
// starting up), rather than that it refused the statement: the same request
// can be tried again once it is back.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrUnavailable) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// 08: connection exception; 57P01-57P05: shut down, crashed,
		// cannot connect now (starting up), terminated.
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P")
	}
	var connect *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connect) || errors.As(err, &netErr) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || pgconn.Timeout(err) ||
		pgconn.SafeToRetry(err) || errors.Is(err, pgconn.ErrConnClosed)
}
