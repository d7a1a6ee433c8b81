package actors

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honmaster/masterserver/storage"
)

// fakePlacement is a node of a cluster whose view the test sets.
type fakePlacement struct {
	name string
	home atomic.Bool
}

func (p *fakePlacement) Node() string                { return p.name }
func (p *fakePlacement) Home(storage.AccountID) bool { return p.home.Load() }
func (p *fakePlacement) Changed(storage.AccountID)   {}

// TestStaleActivationsWriteIsRefused runs two nodes over one database, both
// believing themselves the account's home (a membership change in flight).
// Each activation fences the other's: no write of a stale activation lands,
// the stale one reloads, and every acknowledged change is in the store.
func TestStaleActivationsWriteIsRefused(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pa, pb := &fakePlacement{name: "a"}, &fakePlacement{name: "b"}
	pa.home.Store(true)
	pb.home.Store(true)
	a, b := New(db, Options{Placement: pa}), New(db, Options{Placement: pb})
	defer a.Shutdown()
	defer b.Shutdown()
	ctx := context.Background()
	acct, err := a.CreateAccount(ctx, &NewAccount{Login: "p"})
	if err != nil {
		t.Fatal(err)
	}
	id := acct.ID
	for i, sys := range []*System{a, b, a, b, a} {
		got, err := sys.Apply(ctx, id, addTickets{1})
		if err != nil {
			t.Fatalf("change %d: %v", i, err)
		}
		// Each node's actor was fenced by the other's activation and
		// reloaded: it counts every earlier change.
		if got.(int64) != int64(i+1) {
			t.Fatalf("change %d answered %d tickets: a stale activation's state was used", i, got)
		}
	}
	if epoch, node, err := db.Owner(id); err != nil || node != "a" || epoch < 3 {
		t.Fatalf("owner after alternating activations: epoch %d node %q, %v", epoch, node, err)
	}

	// Node b learns the account's home is elsewhere while its actor is
	// stale (a took the account since): its change is refused to the stale
	// actor and runs again in a transient activation, on the stored state.
	if _, err := b.Apply(ctx, id, addTickets{1}); err != nil { // b's actor is live and current
		t.Fatal(err)
	}
	if _, err := a.Apply(ctx, id, addTickets{1}); err != nil { // a takes it: b's actor is stale
		t.Fatal(err)
	}
	pb.home.Store(false)
	stored, _ := db.LoadAccount(id)
	before := stored.Tickets
	// b's changes now run in transient activations (a fresh epoch each),
	// which fence a's, and never its stale actor's state.
	if got, err := b.Apply(ctx, id, addTickets{1}); err != nil || got.(int64) != before+1 {
		t.Fatalf("transient change on a node that is not home: %v, %v (stored %d before)", got, err, before)
	}
	// The transient activation stops after its change (asynchronously:
	// wait for it, a minute at most).
	for deadline := time.Now().Add(time.Minute); b.Live() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d account actors left on the node that is not home after its change", b.Live())
		}
	}
}

// TestFencedChangeOnANodeThatLostTheAccountIsErrMoved: an actor whose
// account moved while it was live gets its write refused; the asker learns
// ErrMoved (wrapping storage.ErrFenced), and nothing is written.
func TestFencedChangeOnANodeThatLostTheAccountIsErrMoved(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pa := &fakePlacement{name: "a"}
	pa.home.Store(true)
	a := New(db, Options{Placement: pa})
	defer a.Shutdown()
	ctx := context.Background()
	acct, err := a.CreateAccount(ctx, &NewAccount{Login: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Apply(ctx, acct.ID, addTickets{1}); err != nil {
		t.Fatal(err)
	}
	// Another node activates the account (the database is the arbiter) and
	// this node's view changes at the same moment.
	if _, _, err := db.ActivateAccount(acct.ID, "elsewhere"); err != nil {
		t.Fatal(err)
	}
	pa.home.Store(false)
	// a's live actor still runs (it stops only after a refused write): the
	// change goes to it, is fenced, and is not retried here.
	_, err = a.shardOfApply(ctx, acct.ID)
	if !errors.Is(err, ErrMoved) || !errors.Is(err, storage.ErrFenced) {
		t.Fatalf("change of a stale activation: %v, want ErrMoved wrapping storage.ErrFenced", err)
	}
	stored, _ := db.LoadAccount(acct.ID)
	if stored.Tickets != 1 {
		t.Fatalf("%d tickets stored: the fenced change was written", stored.Tickets)
	}
}

// shardOfApply applies addTickets{1} through account id's live actor even
// when the account is not at home (as a request already routed to it is).
func (s *System) shardOfApply(ctx context.Context, id storage.AccountID) (any, error) {
	ch, err := mutate[*changed](ctx, s, s.shardOf(id), func(dl time.Time) *envelope {
		return &envelope{ID: id, Sent: time.Now(), Msg: &applyChange{Change: addTickets{1}, Deadline: dl}}
	})
	if errors.Is(err, storage.ErrFenced) {
		return nil, fmt.Errorf("%w: %w", ErrMoved, err)
	}
	if err != nil {
		return nil, err
	}
	return ch.Reply, nil
}

// TestPublishedIsNeverStaleInClusterMode: pre_auth reads an account's SRP
// verifier through Published. In cluster mode another node can change the
// account (a transient activation: an operator's command there, or a
// request served there while this node missed a probe) without this
// node's live actor knowing until its next write, so a published state
// may be stale: a password reset elsewhere would leave the old password
// good for a login here. Published must then give nothing (the caller
// reads storage), never the stale state.
func TestPublishedIsNeverStaleInClusterMode(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pa, pb := &fakePlacement{name: "a"}, &fakePlacement{name: "b"}
	pa.home.Store(true) // a is the home; b sees it elsewhere
	a, b := New(db, Options{Placement: pa}), New(db, Options{Placement: pb})
	defer a.Shutdown()
	defer b.Shutdown()
	ctx := context.Background()
	acct, err := a.CreateAccount(ctx, &NewAccount{Login: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Apply(ctx, acct.ID, addTickets{1}); err != nil { // a's actor is live
		t.Fatal(err)
	}
	// b changes the account in a transient activation, which fences a's.
	if _, err := b.Apply(ctx, acct.ID, addTickets{5}); err != nil {
		t.Fatal(err)
	}
	stored, err := db.LoadAccount(acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p := a.Published(acct.ID); p != nil && p.Tickets != stored.Tickets {
		t.Fatalf("Published on the home gave %d tickets, the store holds %d: a stale state (a changed password would still log in)",
			p.Tickets, stored.Tickets)
	}
}

// TestForwardedChangeIsNotRunAgainAfterAFence: a request another node
// forwarded to the account's home, whose activation there was fenced
// meanwhile (the account was activated elsewhere while the home was
// paused), is refused with ErrMoved and nothing written: its forwarding
// node may have answered it as of unknown outcome already, and running it
// again in a fresh activation would apply it after later requests. The same
// request arriving directly runs again (the retry is the one of a request
// whose asker still waits).
func TestForwardedChangeIsNotRunAgainAfterAFence(t *testing.T) {
	db, a, acct := homeNode(t)
	ctx := context.Background()
	if _, err := a.Apply(ctx, acct.ID, addTickets{1}); err != nil { // a's actor is live
		t.Fatal(err)
	}
	if _, _, err := db.ActivateAccount(acct.ID, "elsewhere"); err != nil {
		t.Fatal(err)
	}
	_, err := a.Apply(ForwardedContext(ctx), acct.ID, addTickets{1})
	if !errors.Is(err, ErrMoved) {
		t.Fatalf("forwarded change on a fenced activation: %v, want ErrMoved (not run again)", err)
	}
	if stored, _ := db.LoadAccount(acct.ID); stored.Tickets != 1 {
		t.Fatalf("%d tickets stored, want 1: the forwarded change ran again after the fence", stored.Tickets)
	}
	// A direct request is run again in a fresh activation.
	if _, err := a.Apply(ctx, acct.ID, addTickets{1}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.ActivateAccount(acct.ID, "elsewhere"); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Apply(ctx, acct.ID, addTickets{1}); err != nil || got.(int64) != 3 {
		t.Fatalf("direct change after a fence: %v, %v; want it run again (3 tickets)", got, err)
	}
}

// TestCancelledChangeIsNotApplied: a change whose context ended before its
// actor got to it (a forwarding node gave up and cancelled it) is refused
// as expired, with nothing written.
func TestCancelledChangeIsNotApplied(t *testing.T) {
	db, a, acct := homeNode(t)
	ctx, cancel := context.WithCancel(ForwardedContext(context.Background()))
	cancel()
	if _, err := a.Apply(ctx, acct.ID, addTickets{1}); !errors.Is(err, ErrExpired) {
		t.Fatalf("cancelled change: %v, want ErrExpired", err)
	}
	if stored, _ := db.LoadAccount(acct.ID); stored.Tickets != 0 {
		t.Fatalf("%d tickets stored: the cancelled change was applied", stored.Tickets)
	}
}

// homeNode is a node of a cluster (over an in-memory database) that is the
// home of a new account p; all closed when the test ends.
func homeNode(t *testing.T) (*storage.DB, *System, *storage.Account) {
	t.Helper()
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	pa := &fakePlacement{name: "a"}
	pa.home.Store(true)
	a := New(db, Options{Placement: pa})
	t.Cleanup(a.Shutdown)
	acct, err := a.CreateAccount(context.Background(), &NewAccount{Login: "p"})
	if err != nil {
		t.Fatal(err)
	}
	return db, a, acct
}

// TestForwardedEffectSharesRunAgainAfterAFence: an effect started by a
// request another node forwarded here applies its other participants'
// shares at once even when one of their activations was fenced meanwhile:
// a share is not the forwarded request (a repeat of it is a no-op by its
// mark), so it gets the fresh activation's second try instead of waiting a
// minute for the recovery pass.
func TestForwardedEffectSharesRunAgainAfterAFence(t *testing.T) {
	db, a, sender := homeNode(t)
	ctx := context.Background()
	if _, err := a.Apply(ctx, sender.ID, addTickets{10}); err != nil {
		t.Fatal(err)
	}
	receiver := funded(t, a, 0, "r")[0] // its actor is live here
	if _, _, err := db.ActivateAccount(receiver, "elsewhere"); err != nil {
		t.Fatal(err)
	}
	if _, err := testGift.Start(ForwardedContext(ctx), a, giftOf(3), sender.ID, receiver); err != nil {
		t.Fatal(err)
	}
	if left := unfinished(t, db); len(left) != 0 {
		t.Fatalf("%d effects left to the recovery pass: the fenced receiver's share was not run again", len(left))
	}
	wantTickets(t, db, []storage.AccountID{sender.ID, receiver}, 7, 3)
}

// TestClusterSessionCache: in cluster mode a session is cached for the
// activation of its account on the node that read or wrote it, and only
// for that activation. Node b deletes the session through an activation
// of its own (a membership change in flight): a, whose activation has not
// learnt it yet, still answers from memory (the window every record of
// the account has, see clusterSession); once a's activation starts afresh
// (Reactivate, as the cluster asks when a transient activation changed
// the account) or is fenced at its next write, the deletion is seen. A
// node that is not the account's home names the session's account for
// routing from memory once it has read it.
func TestClusterSessionCache(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pa, pb, pc := &fakePlacement{name: "a"}, &fakePlacement{name: "b"}, &fakePlacement{name: "c"}
	pa.home.Store(true)
	a, b, c := New(db, Options{Placement: pa}), New(db, Options{Placement: pb}), New(db, Options{Placement: pc})
	defer a.Shutdown()
	defer b.Shutdown()
	defer c.Shutdown()
	ctx := context.Background()
	acct, err := a.CreateAccount(ctx, &NewAccount{Login: "p"})
	if err != nil {
		t.Fatal(err)
	}
	id := acct.ID
	put := func(sys *System, cookie string) *storage.Session {
		t.Helper()
		s := &storage.Session{Cookie: cookie, AccountID: id, SuperID: id, IP: "1.2.3.4", Expires: time.Now().Add(time.Hour).UTC()}
		if _, err := sys.Apply(ctx, id, putSession{s}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	s1 := put(a, "00112233445566778899aabbccddeeff")
	if a.CachedSessions() != 1 {
		t.Fatalf("a caches %d sessions after writing one, want 1", a.CachedSessions())
	}

	// c routes by the session: read once, then from memory even after the
	// session is gone from storage (the home refuses it then).
	if got, err := c.SessionAccount(s1.Cookie); err != nil || got != id {
		t.Fatalf("c names account %d, %v for the session; want %d", got, err, id)
	}

	// b deletes it through a transient activation of its own (a fresh
	// owner epoch, which fences a's activation).
	if _, err := b.Apply(ctx, id, delSession{s1}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SessionByKey(storage.SessionHash(s1.Cookie)); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the session is still stored after b deleted it: %v", err)
	}
	if got, err := c.SessionAccount(s1.Cookie); err != nil || got != id {
		t.Fatalf("c's routing read storage again: %d, %v", got, err)
	}
	// a's activation has not learnt it: it answers from memory.
	if _, err := a.Session(s1.Cookie); err != nil {
		t.Fatalf("a's current activation did not answer from memory: %v", err)
	}
	// Started afresh, a reads storage again.
	a.Reactivate(id)
	if _, err := a.Session(s1.Cookie); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("a still answers a deleted session after its activation started afresh: %v", err)
	}

	// A session a reads from storage is cached for its live activation.
	s2 := put(b, "ffeeddccbbaa99887766554433221100") // b again: a's activation is stale
	if _, err := a.Apply(ctx, id, addTickets{1}); !errors.Is(err, ErrMoved) && err != nil {
		t.Fatal(err)
	}
	// Whether a's write above was refused (ErrMoved) or ran in a fresh
	// activation, a's activation now took the account after b's write.
	if _, err := a.Apply(ctx, id, addTickets{1}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Session(s2.Cookie); err != nil {
		t.Fatalf("a does not find the session b wrote: %v", err)
	}
	// b deletes it while a's activation is live; a's next write is fenced,
	// its activation stops, and the next one reads storage.
	if _, err := b.Apply(ctx, id, delSession{s2}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Session(s2.Cookie); err != nil {
		t.Fatalf("a's activation did not cache the session it read: %v", err)
	}
	if _, err := a.Apply(ctx, id, addTickets{1}); err != nil && !errors.Is(err, ErrMoved) {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		_, err := a.Session(s2.Cookie)
		if errors.Is(err, storage.ErrNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a still answers the deleted session after its activation was fenced: %v", err)
		}
	}
}
