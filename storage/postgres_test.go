package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/honmaster/masterserver/storage/internal/pgkv"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// The PostgreSQL engine's own promises: a serialization failure is retried
// in a new transaction, a COMMIT whose answer is lost is uncertain, and
// every session commits synchronously whatever the server's default.

func pgStore(db *DB) *pgkv.Store { return db.eng.(*pgEngine).st }

// waitFor polls cond until it holds (bounded: it fails the test after a
// minute). It waits for another session's state, which no event announces.
func waitFor(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	for range 6000 {
		ok, err := cond()
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: still not the case after a minute", what)
}

// A writer that meets another transaction on the same key gets SQLSTATE
// 40001 from PostgreSQL (SERIALIZABLE, concurrent update); the commit is
// run again in a new transaction and succeeds, and its value is the one
// that stays.
func TestPostgresRetriesSerializationFailure(t *testing.T) {
	url := storagetest.PostgresURL(t)
	db, err := OpenPostgres(PostgresOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	other, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	// The other transaction writes the key first and holds it.
	tx, err := other.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO `+pgkv.Table+` VALUES ('hot', 'theirs')`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		b := db.NewBatch()
		b.set([]byte("hot"), []byte("ours"), nil)
		done <- db.Commit(b)
	}()
	// Ours now waits for the other's row lock; when the other commits, ours
	// fails to serialize.
	waitFor(t, "our commit waits for the other transaction's lock", func() (bool, error) {
		var n int
		err := other.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
		return n > 0, err
	})
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("commit after a serialization failure: %v", err)
	}
	if n := pgStore(db).Retries(); n < 1 {
		t.Errorf("%d retries; want the failed attempt run again", n)
	}
	if v, err := db.get([]byte("hot")); err != nil || string(v) != "ours" {
		t.Errorf("value after both commits: %q %v; want ours (committed last)", v, err)
	}
}

// The session is terminated between the writes and the COMMIT: the COMMIT
// gets no answer that says it rolled back, so the commit is reported
// uncertain (the request is answered "outcome unknown"), never as a plain
// failure and never as a success, and storage health fails with it; the
// next commit gets a new connection, and health is good again.
func TestPostgresLostConnectionIsUncertain(t *testing.T) {
	url := storagetest.PostgresURL(t)
	db, err := OpenPostgres(PostgresOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// As the server does on PostgreSQL: a guard with no disk margin, which
	// keeps the health of commits (its clock stopped, so that the failure
	// is remembered however slow the machine).
	guard := NewDiskGuard(t.TempDir(), 0, nil, nil)
	stopped := time.Now()
	guard.now = func() time.Time { return stopped }
	db.SetDiskGuard(guard)
	ctx := context.Background()
	killer, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close(ctx)
	st := pgStore(db)
	st.BeforeCommit = func(ctx context.Context, pid uint32) error {
		st.BeforeCommit = nil // once
		if _, err := killer.Exec(ctx, `SELECT pg_terminate_backend($1)`, int32(pid)); err != nil {
			return err
		}
		waitFor(t, "the session is gone", func() (bool, error) {
			var n int
			err := killer.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE pid = $1`, int32(pid)).Scan(&n)
			return n == 0, err
		})
		return nil
	}
	b := db.NewBatch()
	b.set([]byte("k"), []byte("v"), nil)
	err = db.Commit(b)
	if !errors.Is(err, ErrCommitUncertain) {
		t.Fatalf("commit on a lost connection: %v; want ErrCommitUncertain", err)
	}
	if err := db.Health(); !errors.Is(err, ErrCommitUncertain) {
		t.Errorf("health after the uncertain commit: %v; want ErrCommitUncertain", err)
	}
	b = db.NewBatch()
	b.set([]byte("k2"), []byte("v"), nil)
	if err := db.Commit(b); err != nil {
		t.Fatalf("the next commit: %v", err)
	}
	if err := db.Health(); err != nil {
		t.Errorf("health after a successful commit: %v; want nil", err)
	}
	// The terminated transaction did not commit (PostgreSQL rolled it back).
	if _, err := db.get([]byte("k")); !errors.Is(err, ErrNotFound) {
		t.Errorf("the uncertain write: %v", err)
	}
}

// A failure before the COMMIT is sent is a plain failure: nothing was
// written, and the error does not claim otherwise.
func TestPostgresFailureBeforeCommitIsClean(t *testing.T) {
	db := openPostgresTest(t)
	pgStore(db).BeforeCommit = func(context.Context, uint32) error { return errors.New("injected") }
	b := db.NewBatch()
	b.set([]byte("k"), []byte("v"), nil)
	err := db.Commit(b)
	if err == nil || errors.Is(err, ErrCommitUncertain) {
		t.Fatalf("commit failed before COMMIT: %v; want a plain failure", err)
	}
	if _, err := db.get([]byte("k")); !errors.Is(err, ErrNotFound) {
		t.Errorf("the failed write: %v", err)
	}
}

// Sessions commit synchronously even on a database whose default is off.
func TestPostgresSynchronousCommit(t *testing.T) {
	url := storagetest.PostgresURL(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var name string
	if err := conn.QueryRow(ctx, `SELECT current_database()`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `ALTER DATABASE `+name+` SET synchronous_commit = off`); err != nil {
		t.Fatal(err)
	}
	db, err := OpenPostgres(PostgresOptions{URL: url, StatementTimeout: 7 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pool := pgStore(db)
	got, err := pool.Show("synchronous_commit")
	if err != nil || got != "on" {
		t.Errorf("synchronous_commit = %q, %v; want on", got, err)
	}
	if got, err := pool.Show("statement_timeout"); err != nil || got != "7s" {
		t.Errorf("statement_timeout = %q, %v; want 7s", got, err)
	}
}

// Open's errors: an unparsable URL and an unreachable server are told
// apart (a configuration mistake versus a database that is down), and the
// password is in neither message.
func TestPostgresOpenErrors(t *testing.T) {
	_, err := OpenPostgres(PostgresOptions{URL: "postgres://u:s3cret@127.0.0.1:notaport/db"})
	if !errors.Is(err, ErrPostgresURL) {
		t.Errorf("bad url: %v; want ErrPostgresURL", err)
	}
	if err != nil && containsSecret(err.Error()) {
		t.Errorf("the password is in the message: %v", err)
	}
	_, err = OpenPostgres(PostgresOptions{URL: "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=5", ConnectTimeout: 10 * time.Second})
	if !errors.Is(err, ErrPostgresUnreachable) {
		t.Errorf("unreachable: %v; want ErrPostgresUnreachable", err)
	}
	if err != nil && containsSecret(err.Error()) {
		t.Errorf("the password is in the message: %v", err)
	}
}

func containsSecret(s string) bool {
	for i := 0; i+6 <= len(s); i++ {
		if s[i:i+6] == "s3cret" {
			return true
		}
	}
	return false
}

// One process at a time: a second open of a database in use is refused
// (as a data directory's lock refuses a second server), and allowed again
// once the first closed it.
func TestPostgresOneProcessAtATime(t *testing.T) {
	url := storagetest.PostgresURL(t)
	first, err := OpenPostgres(PostgresOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	if db, err := OpenPostgres(PostgresOptions{URL: url}); !errors.Is(err, ErrPostgresInUse) {
		if err == nil {
			db.Close()
		}
		t.Fatalf("second open: %v; want ErrPostgresInUse", err)
	}
	first.Close()
	again, err := OpenPostgres(PostgresOptions{URL: url})
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	again.Close()
}

// Close releases the database's lock before it returns, in either mode:
// a server restarted at once, or a single-node command run right after a
// cluster stopped, finds the database free. (Closing the session alone is
// not enough: its backend drops the lock when it exits, a moment after the
// client has gone, and a busy machine made the next open fail in CI.)
func TestPostgresCloseReleasesLock(t *testing.T) {
	url := storagetest.PostgresURL(t)
	ctx := context.Background()
	watcher, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close(ctx)
	for i := range 40 {
		db, err := OpenPostgres(PostgresOptions{URL: url, Cluster: i%2 == 1})
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		db.Close()
		var held int
		if err := watcher.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&held); err != nil {
			t.Fatal(err)
		}
		if held != 0 {
			t.Fatalf("close %d (cluster %v) returned with the database's lock still held", i, i%2 == 1)
		}
	}
}

// The session holding the database's lock is terminated (as a PostgreSQL
// restart or an operator's pg_terminate_backend would). While it is gone,
// a single server's commits are refused with nothing written, as "try
// again" (ErrUnavailable), never uncertain and never for good; a cluster
// node's go through, since no other process took the lock exclusively
// (each holds the lock in shared mode itself: pgkv's sharedLockCheck).
// Then the store takes the lock again and commits go through, without a
// restart. So it goes for a single server and for a cluster node, and for
// a cluster node also when another node of the cluster opened the
// database meanwhile.
func TestPostgresLostLockIsTakenAgain(t *testing.T) {
	for _, c := range []struct {
		name             string
		cluster, another bool
	}{{"single", false, false}, {"cluster", true, false}, {"cluster, another node meanwhile", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			db, url := openLockTest(t, c.cluster)
			var err error
			commitRaw(t, db, func(b *Batch) { b.set([]byte("before"), []byte("v"), nil) })
			release := holdKeeper(t, pgStore(db))
			terminateLock(t, url)
			if c.another {
				other, err := OpenPostgres(PostgresOptions{URL: url, Cluster: true})
				if err != nil {
					t.Fatalf("another node opens the database meanwhile: %v", err)
				}
				commitRaw(t, other, func(b *Batch) { b.set([]byte("theirs"), []byte("v"), nil) })
				defer other.Close()
			}
			// The keeper is held: the lock is away.
			b := db.NewBatch()
			b.set([]byte("away"), []byte("v"), nil)
			err = db.Commit(b)
			if c.cluster {
				if err != nil {
					t.Fatalf("a cluster node's commit while its lock session is away and no process holds the lock exclusively: %v", err)
				}
				if _, err := db.get([]byte("away")); err != nil {
					t.Errorf("the write: %v; want it stored", err)
				}
			} else {
				if !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrCommitUncertain) || errors.Is(err, ErrPostgresLockLost) {
					t.Fatalf("commit while the lock is away: %v; want ErrUnavailable (nothing written, try again)", err)
				}
				if _, err := db.get([]byte("away")); !errors.Is(err, ErrNotFound) {
					t.Errorf("the refused write: %v; want nothing written", err)
				}
				if err := db.Health(); !errors.Is(err, ErrUnavailable) {
					t.Errorf("health while the lock is away: %v; want ErrUnavailable", err)
				}
			}
			release()
			waitFor(t, "a commit after the lock was taken again", func() (bool, error) {
				b := db.NewBatch()
				b.set([]byte("after"), []byte("v"), nil)
				err := db.Commit(b)
				if errors.Is(err, ErrUnavailable) {
					return false, nil
				}
				return err == nil, err
			})
			select {
			case <-db.Fatal():
				t.Fatal("Fatal closed: the lock was taken again, the server must stay up")
			default:
			}
			if err := db.Health(); err != nil {
				t.Errorf("health after the lock was taken again: %v", err)
			}
		})
	}
}

// The lock's session is terminated and, before this server takes the lock
// again, another single-node server opens the database, writes and closes
// it (or still holds it): this server's state may be stale, so the lock is
// lost for good: every commit is refused with nothing written, Health says
// why, and Fatal is closed so that the server exits and its supervisor
// restarts it.
func TestPostgresLockTakenMeanwhileIsLostForGood(t *testing.T) {
	for _, c := range []struct {
		name      string
		cluster   bool
		stillOpen bool
	}{{"single, used and closed", false, false}, {"single, still held", false, true}, {"cluster, a single server used it", true, false}} {
		t.Run(c.name, func(t *testing.T) {
			db, url := openLockTest(t, c.cluster)
			var err error
			release := holdKeeper(t, pgStore(db))
			terminateLock(t, url)
			var other *DB
			waitFor(t, "the other server opens the database", func() (bool, error) {
				other, err = OpenPostgres(PostgresOptions{URL: url})
				if errors.Is(err, ErrPostgresInUse) { // the terminated session is on its way out
					return false, nil
				}
				return err == nil, err
			})
			commitRaw(t, other, func(b *Batch) { b.set([]byte("theirs"), []byte("v"), nil) })
			if c.stillOpen {
				defer other.Close()
			} else {
				other.Close()
			}
			// Before the keeper comes back, a commit is refused already
			// (a cluster node's too, whose lock check is its own
			// transaction's shared lock: the other server's exclusive turn
			// is in the lock table's count).
			b := db.NewBatch()
			b.set([]byte("stale"), []byte("v"), nil)
			if err := db.Commit(b); err == nil || errors.Is(err, ErrCommitUncertain) {
				t.Fatalf("commit after another server had the database, before the keeper noticed: %v; want it refused", err)
			}
			if _, err := db.get([]byte("stale")); !errors.Is(err, ErrNotFound) {
				t.Errorf("the refused write: %v; want nothing written", err)
			}
			release()
			select {
			case <-db.Fatal():
			case <-time.After(time.Minute):
				t.Fatal("Fatal not closed a minute after the lock was found taken meanwhile")
			}
			for _, key := range []string{"k", "k2"} {
				b := db.NewBatch()
				b.set([]byte(key), []byte("v"), nil)
				err = db.Commit(b)
				if !errors.Is(err, ErrPostgresLockLost) || errors.Is(err, ErrCommitUncertain) {
					t.Fatalf("commit %s after the lock was lost: %v; want ErrPostgresLockLost, not uncertain", key, err)
				}
				if _, err := db.get([]byte(key)); !errors.Is(err, ErrNotFound) {
					t.Errorf("the refused write %s: %v; want nothing written", key, err)
				}
			}
			if err := db.Health(); !errors.Is(err, ErrPostgresLockLost) {
				t.Errorf("health: %v; want ErrPostgresLockLost", err)
			}
		})
	}
}

// openLockTest opens a fresh database, as a cluster node or not, closed
// when the test ends.
func openLockTest(t *testing.T, cluster bool) (*DB, string) {
	t.Helper()
	url := storagetest.PostgresURL(t)
	db, err := OpenPostgres(PostgresOptions{URL: url, Cluster: cluster})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, url
}

// holdKeeper stops the store's keeper before its next attempt to take the
// lock again, until release is called (once; the test's end calls it
// too).
func holdKeeper(t *testing.T, st *pgkv.Store) (release func()) {
	gate := make(chan struct{})
	var once sync.Once
	hook := func() { <-gate }
	st.BeforeRetake.Store(&hook)
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release) // before the store closes: Close waits for the keeper
	return release
}

// terminateLock ends the session holding the database's lock (the one
// store open on it), as a PostgreSQL restart would, and returns once it is
// gone.
func terminateLock(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	killer, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close(ctx)
	var pid int32
	if err := killer.QueryRow(ctx, `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&pid); err != nil {
		t.Fatalf("the lock's session: %v", err)
	}
	// With a timeout, pg_terminate_backend returns once the session is gone.
	var gone bool
	if err := killer.QueryRow(ctx, `SELECT pg_terminate_backend($1, 60000)`, pid).Scan(&gone); err != nil || !gone {
		t.Fatalf("terminate the lock's session: %v %v", gone, err)
	}
}

// TestPostgresCloseTwice: a second Close of a PostgreSQL database does
// nothing (a test's deferred Close after its explicit one panicked on the
// lock keeper's closed channel).
func TestPostgresCloseTwice(t *testing.T) {
	url := storagetest.PostgresURL(t)
	db, err := OpenPostgres(PostgresOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	db.Close()
	// The lock went with the first Close: the database opens again.
	again, err := OpenPostgres(PostgresOptions{URL: url})
	if err != nil {
		t.Fatalf("open after two closes: %v", err)
	}
	again.Close()
}

// Every statement a fenced write sends is planned once per session, not
// at every execution: PostgreSQL plans a prepared statement afresh for its
// first five executions and then keeps its generic plan unless that looks
// dearer than the custom ones had. The owner epoch's check was written
// with = ANY of a one-key array, whose generic plan PostgreSQL prices for
// ten keys, so it was planned again at every write of a cluster node
// (about 45 µs of PostgreSQL's CPU per drop, issue 35 item 7). The pool has
// one session, so that every write and the read of its plans share it.
func TestPostgresFencedWritesKeepGenericPlans(t *testing.T) {
	url := storagetest.PostgresURL(t)
	db, err := OpenPostgres(PostgresOptions{URL: url, Cluster: true, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	writeFresh(t, db, sampleAccount(7, "planned"))
	epoch, acct, err := db.ActivateAccount(7, "node-a")
	if err != nil {
		t.Fatal(err)
	}
	const writes = 12
	for i := range writes {
		next := acct.Clone()
		next.Gold = int64(i)
		b := db.NewBatch()
		b.Fence(acct.ID, epoch)
		b.PutAccount(next, acct)
		b.del([]byte(fmt.Sprint("test/gone-", i))) // one key deleted: the other statement on a key list
		if err := db.Commit(b); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		acct = next
	}
	plans, err := pgStore(db).Plans()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range plans {
		if !strings.Contains(p.Statement, "FOR SHARE") && !strings.HasPrefix(p.Statement, "DELETE") {
			continue
		}
		checked++
		if p.Generic+p.Custom < writes || p.Custom > 5 {
			t.Errorf("%q: planned afresh %d times of %d; want at most the first 5 of %d", p.Statement, p.Custom, p.Generic+p.Custom, writes)
		}
	}
	if checked != 2 {
		t.Errorf("found %d of the 2 statements (the owner check, the delete) among the session's %d: %+v", checked, len(plans), plans)
	}
}

// A fenced write sends PostgreSQL no more statements than an unfenced one:
// the owner epoch's check (a row read FOR SHARE) goes in the statement of
// the database lock's check, which every write sends. As a statement of
// its own it cost PostgreSQL a statement's work at every write of a
// cluster node (issue 35 item 7). The pool has one session, whose prepared
// statements count their executions (generic and custom plans; BEGIN and
// COMMIT are not prepared).
func TestPostgresFencedWriteSendsNoExtraStatement(t *testing.T) {
	url := storagetest.PostgresURL(t)
	db, err := OpenPostgres(PostgresOptions{URL: url, Cluster: true, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	executions := func() int64 {
		t.Helper()
		plans, err := pgStore(db).Plans()
		if err != nil {
			t.Fatal(err)
		}
		n := int64(0)
		for _, p := range plans {
			n += p.Generic + p.Custom
		}
		return n
	}
	writeFresh(t, db, sampleAccount(8, "fenced"))
	writeFresh(t, db, sampleAccount(9, "unfenced"))
	epoch, fenced, err := db.ActivateAccount(8, "node-a")
	if err != nil {
		t.Fatal(err)
	}
	unfenced, err := db.Account(9)
	if err != nil {
		t.Fatal(err)
	}
	const writes = 6
	write := func(acct *Account, fence bool) (*Account, int64) {
		t.Helper()
		before := executions()
		next := acct.Clone()
		next.Gold++
		b := db.NewBatch()
		if fence {
			b.Fence(acct.ID, epoch)
		}
		b.PutAccount(next, acct)
		if err := db.Commit(b); err != nil {
			t.Fatalf("write (fenced %v): %v", fence, err)
		}
		return next, executions() - before - 1 // less Plans' own query
	}
	for i := range writes {
		var withFence, without int64
		fenced, withFence = write(fenced, true)
		unfenced, without = write(unfenced, false)
		if withFence != without {
			t.Fatalf("write %d: a fenced write ran %d statements, an unfenced one %d", i, withFence, without)
		}
	}
	// That the check still refuses a stale epoch and locks its row against
	// a takeover is for TestFenceRefusesStaleActivation (every engine) and
	// TestPostgresActivationSeesInFlightFencedWrite to show.
}
