package actors

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/storage"
)

func newSystem(t *testing.T, opts Options) *System {
	t.Helper()
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	s := New(db, opts)
	t.Cleanup(func() { s.Shutdown(); db.Close() })
	return s
}

// addTickets is a test Change: it adds n tickets, failing when the balance
// would go negative.
type addTickets struct{ n int64 }

var errBroke = errors.New("test: not enough tickets")

func (c addTickets) Apply(tx *Tx) (any, error) {
	if tx.View().Tickets+c.n < 0 {
		return nil, errBroke
	}
	a := tx.Account()
	a.Tickets += c.n
	return a.Tickets, nil
}

type panicky struct{}

func (panicky) Apply(tx *Tx) (any, error) {
	tx.Account().Tickets = 1 << 40
	panic("boom")
}

type foreignSession struct{}

func (foreignSession) Apply(tx *Tx) (any, error) {
	tx.Account().Tickets = 999
	return nil, tx.PutSession(&storage.Session{Cookie: "c", AccountID: tx.View().ID + 1})
}

func create(t *testing.T, s *System, login, parent string) *storage.Account {
	t.Helper()
	a, err := s.CreateAccount(context.Background(), &NewAccount{Login: login, ParentLogin: parent, Account: storage.Account{Nickname: login}})
	if err != nil {
		t.Fatalf("create %s: %v", login, err)
	}
	return a
}

func TestCreateAccount(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	main := create(t, s, "Main", "")
	sub := create(t, s, "sub1", "Main")
	if main.ID != 1 || main.SuperID != 1 || sub.ID != 2 || sub.SuperID != 1 {
		t.Fatalf("ids: main %d/%d sub %d/%d", main.ID, main.SuperID, sub.ID, sub.SuperID)
	}
	for _, tc := range []struct {
		name, login, parent string
		want                error
	}{
		{"same login", "Main", "", ErrLoginTaken},
		{"missing parent", "x", "nobody", ErrBadParent},
		{"sub-account as parent", "y", "sub1", ErrBadParent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.CreateAccount(ctx, &NewAccount{Login: tc.login, ParentLogin: tc.parent})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if subs, _ := s.DB().SubAccounts(1); len(subs) != 1 || subs[0] != 2 {
		t.Errorf("SubAccounts = %v", subs)
	}
	// A case variant is a different login (logins are exact).
	if other := create(t, s, "main", ""); other.ID != 3 {
		t.Errorf("case variant got id %d", other.ID)
	}
}

func TestApplyCommitsBeforeReplying(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "A", "")
	res, err := s.Apply(ctx, a.ID, addTickets{10})
	if err != nil || res.(int64) != 10 {
		t.Fatalf("Apply = %v, %v", res, err)
	}
	stored, _ := s.DB().Account(a.ID)
	if stored.Tickets != 10 {
		t.Errorf("stored tickets %d, want 10", stored.Tickets)
	}

	for _, tc := range []struct {
		name   string
		change Change
		want   error
	}{
		{"refused change", addTickets{-11}, errBroke},
		{"panic", panicky{}, ErrPanic},
		{"write to another account", foreignSession{}, ErrWrongAccount},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Apply(ctx, a.ID, tc.change); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			snap, err := s.Account(ctx, a.ID)
			if err != nil || snap.Tickets != 10 {
				t.Errorf("in-memory tickets %d (%v), want 10", snap.Tickets, err)
			}
			if stored, _ := s.DB().Account(a.ID); stored.Tickets != 10 {
				t.Errorf("stored tickets %d, want 10", stored.Tickets)
			}
		})
	}
	if _, err := s.DB().Session("c"); !errors.Is(err, storage.ErrNotFound) {
		t.Error("a refused change's session was written")
	}
}

// TestApplyTyped: Apply[R] answers the change's own reply type, commits
// like System.Apply, and a refused change writes nothing.
func TestApplyTyped(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "A", "")
	add := func(n int64) ChangeFunc[int64] {
		return func(tx *Tx) (int64, error) {
			if tx.View().Tickets+n < 0 {
				return 0, errBroke
			}
			tx.Account().Tickets += n
			return tx.View().Tickets, nil
		}
	}
	got, err := Apply(ctx, s, a.ID, add(7))
	if err != nil || got != 7 {
		t.Fatalf("Apply = %d, %v", got, err)
	}
	if got, err := Apply(ctx, s, a.ID, add(-8)); !errors.Is(err, errBroke) || got != 0 {
		t.Fatalf("refused: %d, %v", got, err)
	}
	if stored, _ := s.DB().Account(a.ID); stored.Tickets != 7 {
		t.Errorf("stored tickets %d, want 7", stored.Tickets)
	}
	// An interface reply left nil is no reply of that type: an error, not
	// a nil the caller would trip on.
	if _, err := Apply(ctx, s, a.ID, ChangeFunc[fmt.Stringer](func(*Tx) (fmt.Stringer, error) { return nil, nil })); !errors.Is(err, ErrUnexpectedReply) {
		t.Errorf("nil interface reply: %v", err)
	}
}

func TestUnknownAccount(t *testing.T) {
	s := newSystem(t, Options{})
	if _, err := s.Account(context.Background(), 42); !errors.Is(err, ErrNoAccount) {
		t.Fatalf("err = %v", err)
	}
	if _, err := s.Apply(context.Background(), 42, addTickets{1}); !errors.Is(err, ErrNoAccount) {
		t.Fatalf("err = %v", err)
	}
}

func TestSnapshotIsACopy(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "A", "")
	if _, err := s.Apply(ctx, a.ID, addTickets{5}); err != nil {
		t.Fatal(err)
	}
	snap, _ := s.Account(ctx, a.ID)
	snap.Tickets = 1000
	snap.Upgrades = append(snap.Upgrades, storage.Upgrade{ID: "x"})
	again, _ := s.Account(ctx, a.ID)
	if again.Tickets != 5 || len(again.Upgrades) != 0 {
		t.Errorf("snapshot aliased actor state: %+v", again)
	}
}

// TestConcurrentSingleWriter sends many concurrent changes to few accounts
// while actors passivate and come back (a tiny idle timeout): every request
// is answered and none is lost or applied twice.
func TestConcurrentSingleWriter(t *testing.T) {
	s := newSystem(t, Options{IdleTimeout: 2 * time.Millisecond, Shards: 4})
	ctx := context.Background()
	const accounts, workers, perWorker = 4, 32, 40
	ids := make([]storage.AccountID, accounts)
	for i := range ids {
		ids[i] = create(t, s, string(rune('a'+i)), "").ID
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*perWorker)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWorker; i++ {
				if _, err := s.Apply(ctx, ids[(w+i)%accounts], addTickets{1}); err != nil {
					errs <- err
				}
				if i%8 == 0 {
					time.Sleep(3 * time.Millisecond) // let actors go idle and passivate
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("request failed: %v", err)
	}
	var total int64
	for _, id := range ids {
		a, err := s.DB().Account(id)
		if err != nil {
			t.Fatal(err)
		}
		total += a.Tickets
	}
	if total != workers*perWorker {
		t.Errorf("total tickets %d, want %d", total, workers*perWorker)
	}
	deadline := time.Now().Add(time.Minute) // a bound for a stalled machine
	for s.Live() != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := s.Live(); n != 0 {
		t.Errorf("%d account actors still alive after idling", n)
	}
}

func TestAskHonoursContextDeadline(t *testing.T) {
	s := newSystem(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	if _, err := s.Account(ctx, 1); !errors.Is(err, ErrExpired) {
		t.Fatalf("err = %v, want ErrExpired", err)
	}
}

func TestStopped(t *testing.T) {
	s := newSystem(t, Options{})
	s.Shutdown()
	if _, err := s.Account(context.Background(), 1); !errors.Is(err, ErrStopped) {
		t.Fatalf("err = %v, want ErrStopped", err)
	}
}

func TestEnsureMeta(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	first, err := s.EnsureMeta(ctx, "secret", []byte("one"))
	if err != nil || string(first) != "one" {
		t.Fatalf("first = %q, %v", first, err)
	}
	again, err := s.EnsureMeta(ctx, "secret", []byte("two"))
	if err != nil || string(again) != "one" {
		t.Fatalf("second call replaced the value: %q, %v", again, err)
	}
}

func TestReadAndCatalogVersion(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "R", "")
	if _, err := s.Apply(ctx, a.ID, addTickets{9}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Read(ctx, a.ID, func(acct *storage.Account) any { return acct.Tickets })
	if err != nil || got.(int64) != 9 {
		t.Fatalf("Read = %v, %v", got, err)
	}
	if _, err := s.Read(ctx, 99, func(*storage.Account) any { return nil }); !errors.Is(err, ErrNoAccount) {
		t.Fatalf("Read of a missing account: %v", err)
	}
	v0 := s.GlobalVersion(testGlobal.Name())
	if _, err := s.UpdateGlobal(ctx, func(g *GlobalTx) (any, error) { return nil, testGlobal.Put(g, "k", "v") }); err != nil {
		t.Fatal(err)
	}
	if s.GlobalVersion(testGlobal.Name()) == v0 {
		t.Error("global version unchanged after a write")
	}
	if v, err := testGlobal.Get(s.DB(), "k"); err != nil || v != "v" {
		t.Errorf("global record = %q, %v", v, err)
	}
}

// slowChange blocks its account's actor until released.
type slowChange struct{ started, release chan struct{} }

func (c slowChange) Apply(tx *Tx) (any, error) {
	close(c.started)
	<-c.release
	return nil, nil
}

// TestExpiredChangeWritesNothing backs up an account's mailbox: a change
// whose deadline passes while it waits is refused with ErrExpired and never
// applied, so its asker's failure reply is the truth.
func TestExpiredChangeWritesNothing(t *testing.T) {
	s := newSystem(t, Options{})
	a := create(t, s, "Q", "")
	started, release := make(chan struct{}), make(chan struct{})
	blocked := make(chan error, 1)
	go func() {
		_, err := s.Apply(context.Background(), a.ID, slowChange{started, release})
		blocked <- err
	}()
	<-started // the actor is busy: what comes next waits in its mailbox
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	queued := make(chan error, 1)
	go func() {
		_, err := s.Apply(ctx, a.ID, addTickets{100})
		queued <- err
	}()
	<-ctx.Done()
	time.Sleep(20 * time.Millisecond) // past the queued change's deadline
	close(release)
	if err := <-blocked; err != nil {
		t.Fatal(err)
	}
	if err := <-queued; !errors.Is(err, ErrExpired) {
		t.Fatalf("queued change: err = %v, want ErrExpired", err)
	}
	if acct, _ := s.Account(context.Background(), a.ID); acct.Tickets != 0 {
		t.Errorf("expired change was applied: tickets %d", acct.Tickets)
	}
}

// viewEditor edits the account through View, which a change must not do.
type viewEditor struct{}

func (viewEditor) Apply(tx *Tx) (any, error) {
	tx.View().Tickets = 777
	return nil, nil
}

// TestViewEditsAreDropped: an edit made through View is neither stored nor
// kept in memory, so the two never disagree.
func TestViewEditsAreDropped(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "V", "")
	if _, err := s.Apply(ctx, a.ID, viewEditor{}); err != nil {
		t.Fatal(err)
	}
	mem, _ := s.Account(ctx, a.ID)
	disk, _ := s.DB().Account(a.ID)
	if mem.Tickets != 0 || disk.Tickets != 0 {
		t.Errorf("tickets in memory %d, on disk %d; want 0 and 0", mem.Tickets, disk.Tickets)
	}
}

// TestShutdownWithHeldRequest: a request held for an account whose actor is
// being passivated when the system shuts down is answered ErrStopped, and
// the shutdown neither hangs nor leaves a respawned actor behind.
func TestShutdownWithHeldRequest(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// No idle sweep runs during the test: the busy actor is stopped by
	// hand (release, as a sweep would), so nothing depends on timing.
	s := New(db, Options{IdleTimeout: time.Hour, Shards: 1})
	a := create(t, s, "H", "")
	sh := s.shardOf(a.ID)
	// waitFor polls cond (under the shard's lock) until it holds: a bounded
	// wait for a state, not a timed assertion.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for i := 0; ; i++ {
			sh.mu.Lock()
			ok := cond()
			sh.mu.Unlock()
			if ok {
				return
			}
			if i > 600_000 {
				t.Fatalf("waited a minute for %s", what)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	started, release := make(chan struct{}), make(chan struct{})
	busy := make(chan error, 1)
	go func() {
		_, err := s.Apply(context.Background(), a.ID, slowChange{started, release})
		busy <- err
	}()
	<-started
	sh.release(a.ID) // the busy actor gets poisoned behind its change
	held := make(chan error, 1)
	go func() {
		_, err := s.Apply(context.Background(), a.ID, addTickets{1})
		held <- err
	}()
	waitFor("the request to be held", func() bool { c := sh.children[a.ID]; return c != nil && c.held != nil && len(*c.held) == 1 })
	stopped := make(chan struct{})
	go func() { s.Shutdown(); close(stopped) }()
	waitFor("the shard to drain", func() bool { return sh.drained != nil })
	close(release)
	select {
	case <-stopped:
	case <-time.After(2 * time.Minute): // a hang, not a slow machine
		t.Fatal("shutdown hung")
	}
	if err := <-busy; err != nil {
		t.Errorf("busy change: %v", err)
	}
	if err := <-held; err == nil {
		t.Error("held change succeeded after shutdown")
	} else if !errors.Is(err, ErrStopped) && !errors.Is(err, ErrTimeout) {
		t.Errorf("held change: %v", err)
	}
	if n := s.Live(); n != 0 {
		t.Errorf("%d account actors alive after shutdown", n)
	}
}
