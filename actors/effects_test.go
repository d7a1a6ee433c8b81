package actors

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/honmaster/masterserver/storage"
)

// testGift moves n tickets (the payload) from the first participant to
// each of the others: the first share pays n for each of them, refused
// when the balance is short; every other share receives n.
var testGift = RegisterEffect("test.gift", func(tx *Tx, e *storage.Effect, share int) error {
	n := int64(binary.BigEndian.Uint64(e.Payload))
	if hook := beforeShare.Load(); hook != nil {
		(*hook)(share)
	}
	if share == 0 {
		return addTickets{-n * int64(len(e.Participants)-1)}.apply(tx)
	}
	tx.Account().Tickets += n
	return nil
})

// beforeShare, when set, runs at the start of every test gift's share,
// inside the actor (a fault test turns a failure on there).
var beforeShare atomic.Pointer[func(share int)]

// atShare makes fn run at the start of every test gift's share number
// share, until the test ends.
func atShare(t *testing.T, share int, fn func()) {
	hook := func(i int) {
		if i == share {
			fn()
		}
	}
	beforeShare.Store(&hook)
	t.Cleanup(func() { beforeShare.Store(nil) })
}

func (c addTickets) apply(tx *Tx) error { _, err := c.Apply(tx); return err }

func giftOf(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

// funded creates accounts with the given tickets each.
func funded(t *testing.T, s *System, tickets int64, logins ...string) []storage.AccountID {
	t.Helper()
	var ids []storage.AccountID
	for _, l := range logins {
		a := create(t, s, l, "")
		if _, err := s.Apply(context.Background(), a.ID, addTickets{tickets}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	return ids
}

// stored reads the stored tickets of each account.
func stored(t *testing.T, db *storage.DB, ids ...storage.AccountID) []int64 {
	t.Helper()
	out := make([]int64, len(ids))
	for i, id := range ids {
		a, err := db.Account(id)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = a.Tickets
	}
	return out
}

func unfinished(t *testing.T, db *storage.DB) []*storage.Effect {
	t.Helper()
	var out []*storage.Effect
	if err := db.EachEffect(func(e *storage.Effect) error { out = append(out, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func wantTickets(t *testing.T, db *storage.DB, ids []storage.AccountID, want ...int64) {
	t.Helper()
	if got := stored(t, db, ids...); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stored tickets %v; want %v", got, want)
	}
}

// A gift debits the sender and credits the receiver, and leaves no record
// and no mark behind.
func TestEffectGift(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	ids := funded(t, s, 100, "from", "to")
	id, err := testGift.Start(ctx, s, giftOf(30), ids...)
	if err != nil {
		t.Fatal(err)
	}
	wantTickets(t, s.DB(), ids, 70, 130)
	if snap, err := s.Snapshot(ctx, ids[1]); err != nil || snap.Tickets != 130 {
		t.Errorf("receiver's live state: %v tickets, %v; want 130", snap.Tickets, err)
	}
	if left := unfinished(t, s.DB()); len(left) != 0 {
		t.Errorf("records of a finished gift: %v", left)
	}
	// The sender's mark stays until its next share; the receiver, last,
	// needs none (the record's deletion is its mark).
	for i, want := range []string{fmt.Sprint([]storage.EffectID{id}), "[]"} {
		if marks, err := s.DB().EffectMarks(ids[i]); err != nil || fmt.Sprint(marks) != want {
			t.Errorf("marks of participant %d: %v %v; want %s", i, marks, err, want)
		}
	}
	if _, err := testGift.Start(ctx, s, giftOf(1), ids...); err != nil {
		t.Fatal(err)
	}
	if marks, err := s.DB().EffectMarks(ids[0]); err != nil || len(marks) != 1 || marks[0] == id {
		t.Errorf("sender's marks after a second gift: %v %v; want only the second's", marks, err)
	}
}

// A refused first share writes nothing at all; a malformed effect is
// refused before anything runs.
func TestEffectRefusedWritesNothing(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	ids := funded(t, s, 100, "poor", "rich")
	if _, err := testGift.Start(ctx, s, giftOf(101), ids...); !errors.Is(err, errBroke) {
		t.Fatalf("gift beyond the balance: %v; want the kind's refusal", err)
	}
	for _, bad := range [][]storage.AccountID{nil, {ids[0], ids[0]}, {ids[0], ids[1], ids[0]}} {
		if _, err := testGift.Start(ctx, s, giftOf(1), bad...); !errors.Is(err, ErrBadEffect) {
			t.Errorf("participants %v: %v; want ErrBadEffect", bad, err)
		}
	}
	for _, parts := range [][]storage.AccountID{{ids[0], 999}, {999, ids[0]}} {
		if _, err := testGift.Start(ctx, s, giftOf(1), parts...); !errors.Is(err, ErrNoAccount) {
			t.Errorf("gift between %v, one of which does not exist: %v; want ErrNoAccount", parts, err)
		}
	}
	wantTickets(t, s.DB(), ids, 100, 100)
	if left := unfinished(t, s.DB()); len(left) != 0 {
		t.Errorf("records left: %v", left)
	}
}

// Every share applied twice or more (a resumed effect, two resumers) counts
// once; the middle share's mark stays until the account's next share,
// which drops it once the effect finished.
func TestEffectShareRepeatIsNoop(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	ids := funded(t, s, 100, "a", "b", "c")
	e := &storage.Effect{ID: storage.EffectID{7}, Kind: testGift.Name(), Payload: giftOf(10), Participants: ids, Created: time.Now()}
	for _, share := range []int{0, 1, 1, 2, 1, 2, 2} {
		if _, err := s.applyShare(ctx, testGift, e, share, share == len(ids)-1); err != nil {
			t.Fatalf("share %d: %v", share, err)
		}
	}
	if _, err := s.applyShare(ctx, testGift, e, 0, false); err != nil {
		t.Errorf("the first share again, after the effect finished: %v; want a no-op", err)
	}
	wantTickets(t, s.DB(), ids, 80, 110, 110)
	if finished, left, err := s.ResumeEffects(ctx, 0); err != nil || finished+left != 0 {
		t.Errorf("resume after the effect finished: %d finished, %d left, %v; want nothing to do", finished, left, err)
	}
	if marks, _ := s.DB().EffectMarks(ids[1]); len(marks) != 1 || marks[0] != e.ID {
		t.Fatalf("marks of the middle participant: %v; want the effect's until its next share", marks)
	}
	// b's next share (as first participant of a gift) drops the old mark.
	next, err := testGift.Start(ctx, s, giftOf(1), ids[1], ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if marks, _ := s.DB().EffectMarks(ids[1]); len(marks) != 1 || marks[0] != next {
		t.Errorf("marks after the next share: %v; want the finished effect's dropped, the new one's kept", marks)
	}
	wantTickets(t, s.DB(), ids, 81, 109, 110)
}

// A participant deleted while the effect is unfinished loses its share;
// the others get theirs, and the record goes even when the deleted one
// was the last participant (no share left to delete it).
func TestEffectParticipantDeleted(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	ids := funded(t, s, 100, "p0", "p1", "p2")
	for i, gone := range []int{2, 1} {
		e := &storage.Effect{ID: storage.EffectID{byte(i + 1)}, Kind: testGift.Name(), Payload: giftOf(10),
			Participants: ids, Created: time.Now()}
		if _, err := s.applyShare(ctx, testGift, e, 0, false); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DeleteAccount(ctx, ids[gone]); err != nil {
			t.Fatal(err)
		}
		if finished, left, err := s.ResumeEffects(ctx, 0); err != nil || finished != 1 || left != 0 {
			t.Fatalf("resume with participant %d deleted: %d finished, %d left, %v", gone, finished, left, err)
		}
		if i == 0 {
			wantTickets(t, s.DB(), ids[:2], 80, 110)
		}
	}
	wantTickets(t, s.DB(), ids[:1], 60)
	if left := unfinished(t, s.DB()); len(left) != 0 {
		t.Errorf("records left: %v", left)
	}
}

// Gifts crossing between two accounts in both directions, concurrently,
// all complete (no actor waits for another) and the sum holds.
func TestEffectCrossingGifts(t *testing.T) {
	s := newSystem(t, Options{})
	ids := funded(t, s, 1000, "left", "right")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const per = 40
	var wg sync.WaitGroup
	errs := make(chan error, 4*per)
	for w := range 4 {
		from, to := ids[w%2], ids[1-w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				if _, err := testGift.Start(ctx, s, giftOf(3), from, to); err != nil {
					errs <- err
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("crossing gifts did not complete within a minute: deadlock")
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	wantTickets(t, s.DB(), ids, 1000, 1000)
}

// crashableDB opens a database on a file system that keeps, on a crash,
// only what was synced.
func crashableDB(t *testing.T, fs vfs.FS) *storage.DB {
	t.Helper()
	db, err := storage.Open("db", &storage.Options{Knobs: &storage.TestingKnobs{FS: fs}})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// The server dies (what was synced survives, nothing else) between the
// debit and the credit: the next start's recovery pass applies the credit,
// once, and the balances sum as before.
func TestEffectResumedAfterCrash(t *testing.T) {
	mem := vfs.NewCrashableMem()
	db := crashableDB(t, mem)
	s := New(db, Options{})
	ctx := context.Background()
	ids := funded(t, s, 100, "sender", "receiver")
	e := &storage.Effect{ID: storage.EffectID{1}, Kind: testGift.Name(), Payload: giftOf(40), Participants: ids, Created: time.Now()}
	if _, err := s.applyShare(ctx, testGift, e, 0, false); err != nil { // Start, up to its first share
		t.Fatal(err)
	}
	crashed := mem.CrashClone(vfs.CrashCloneCfg{})
	s.Shutdown()
	_ = db.Close()

	db2 := crashableDB(t, crashed)
	defer db2.Close()
	wantTickets(t, db2, ids, 60, 100) // the debit, and the record, survived
	if left := unfinished(t, db2); len(left) != 1 || left[0].ID != e.ID {
		t.Fatalf("unfinished after the crash: %v; want the gift", left)
	}
	s2 := New(db2, Options{EffectRetry: DefaultEffectRetry}) // its start pass resumes the gift
	defer s2.Shutdown()
	deadline := time.Now().Add(time.Minute)
	for len(unfinished(t, db2)) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the start's recovery pass did not finish the gift within a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
	wantTickets(t, db2, ids, 60, 140)
	if finished, left, err := s2.ResumeEffects(ctx, 0); err != nil || finished+left != 0 {
		t.Errorf("another pass: %d finished, %d left, %v; want nothing to do", finished, left, err)
	}
	wantTickets(t, db2, ids, 60, 140)
}

// A kill at any point of a run of gifts: the synced state at every
// commit of the run, restarted and recovered, sums to the same total,
// with each gift whole or absent.
func TestEffectCrashAtEveryCommit(t *testing.T) {
	mem := vfs.NewCrashableMem()
	db := crashableDB(t, mem)
	s := New(db, Options{})
	ctx := context.Background()
	ids := funded(t, s, 50, "x", "y", "z")
	var clones []*vfs.MemFS
	var cloneMu sync.Mutex
	hook := func(int) { // before each share's commit: the state a kill there leaves
		cloneMu.Lock()
		clones = append(clones, mem.CrashClone(vfs.CrashCloneCfg{}))
		cloneMu.Unlock()
	}
	beforeShare.Store(&hook)
	for i, g := range []struct {
		n        int64
		from, to []int
	}{{10, []int{0}, []int{1}}, {20, []int{1}, []int{2, 0}}, {5, []int{2}, []int{0}}} {
		parts := []storage.AccountID{ids[g.from[0]]}
		for _, to := range g.to {
			parts = append(parts, ids[to])
		}
		if _, err := testGift.Start(ctx, s, giftOf(g.n), parts...); err != nil {
			t.Fatalf("gift %d: %v", i, err)
		}
	}
	beforeShare.Store(nil)
	clones = append(clones, mem.CrashClone(vfs.CrashCloneCfg{}))
	s.Shutdown()
	_ = db.Close()
	if len(clones) < 8 {
		t.Fatalf("%d crash points; want one per share and the end", len(clones))
	}
	for i, fs := range clones {
		db := crashableDB(t, fs)
		s := New(db, Options{})
		if _, left, err := s.ResumeEffects(ctx, 0); err != nil || left != 0 {
			t.Errorf("crash point %d: resume left %d, %v", i, left, err)
		}
		got := stored(t, db, ids...)
		if sum := got[0] + got[1] + got[2]; sum != 150 {
			t.Errorf("crash point %d: balances %v sum to %d; want 150", i, got, sum)
		}
		if left := unfinished(t, db); len(left) != 0 {
			t.Errorf("crash point %d: unfinished after the pass: %v", i, left)
		}
		s.Shutdown()
		_ = db.Close()
	}
}

// The credit's commit meets a full disk (errorfs fails the log's writes):
// Pebble fails for good, the server restarts, and the recovery pass
// applies the credit once.
func TestEffectDiskFailsBeforeCredit(t *testing.T) {
	mem := vfs.NewCrashableMem()
	var failing atomic.Bool
	fs := errorfs.Wrap(mem, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if failing.Load() && op.Kind.ReadOrWrite() == errorfs.OpIsWrite && strings.HasSuffix(op.Path, ".log") {
			return syscall.ENOSPC
		}
		return nil
	}))
	db := crashableDB(t, fs) // not closed: the failed engine would not close cleanly
	s := New(db, Options{})
	ctx := context.Background()
	ids := funded(t, s, 100, "payer", "payee")
	atShare(t, 1, func() { failing.Store(true) })
	if _, err := testGift.Start(ctx, s, giftOf(25), ids...); err != nil {
		t.Fatalf("gift whose credit fails: %v; want nil (the debit committed the gift)", err)
	}
	crashed := mem.CrashClone(vfs.CrashCloneCfg{})
	s.Shutdown()

	db2 := crashableDB(t, crashed)
	defer db2.Close()
	wantTickets(t, db2, ids, 75, 100) // the credit's log write failed
	if left := unfinished(t, db2); len(left) != 1 {
		t.Fatalf("unfinished after the restart: %d; want the gift", len(left))
	}
	s2 := New(db2, Options{})
	defer s2.Shutdown()
	if finished, left, err := s2.ResumeEffects(ctx, 0); err != nil || left != 0 || finished != 1 {
		t.Errorf("resume after the restart: %d finished, %d left, %v; want the gift finished", finished, left, err)
	}
	wantTickets(t, db2, ids, 75, 125)
}

// The credit commits but its answer is lost (a connection dropped during
// COMMIT): the effect is finished, and a recovery pass changes nothing.
func TestEffectCreditAnswerLost(t *testing.T) {
	db, loseNext := openLosingAnswers(t)
	s := New(db, Options{})
	t.Cleanup(func() { s.Shutdown(); db.Close() })
	ctx := context.Background()
	ids := funded(t, s, 100, "giver", "taker")
	atShare(t, 1, func() { loseNext.Store(true) })
	if _, err := testGift.Start(ctx, s, giftOf(5), ids...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ResumeEffects(ctx, 0); err != nil {
		t.Fatal(err)
	}
	wantTickets(t, db, ids, 95, 105)
}

// Two nodes of a cluster resume the same effects at once, each share
// through an activation fenced by its owner epoch: every share counts
// once. On Pebble (one store shared in-process) and PostgreSQL.
func TestEffectTwoNodesResume(t *testing.T) {
	for _, backend := range []string{"pebble", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			db1, db2 := twoStores(t, backend)
			pa, pb := &fakePlacement{name: "a"}, &fakePlacement{name: "b"}
			pa.home.Store(true) // both believe themselves home: a view change in flight
			pb.home.Store(true)
			a, b := New(db1, Options{Placement: pa}), New(db2, Options{Placement: pb})
			t.Cleanup(func() { a.Shutdown(); b.Shutdown() })
			ctx := context.Background()
			ids := funded(t, a, 1000, "n1", "n2", "n3")
			const effects = 10
			for i := range effects {
				e := &storage.Effect{ID: storage.EffectID{byte(i + 1)}, Kind: testGift.Name(), Payload: giftOf(2),
					Participants: ids, Created: time.Now()}
				if _, err := a.applyShare(ctx, testGift, e, 0, false); err != nil {
					t.Fatal(err)
				}
			}
			var wg sync.WaitGroup
			for _, sys := range []*System{a, b, a, b} {
				wg.Add(1)
				go func() { defer wg.Done(); _, _, _ = sys.ResumeEffects(ctx, 0) }()
			}
			wg.Wait()
			// A share fenced twice (ErrMoved) is left for a later pass.
			if _, left, err := b.ResumeEffects(ctx, 0); err != nil || left != 0 {
				t.Fatalf("last pass: %d left, %v", left, err)
			}
			wantTickets(t, db1, ids, 1000-2*2*effects, 1000+2*effects, 1000+2*effects)
			if left := unfinished(t, db1); len(left) != 0 {
				t.Errorf("unfinished: %d", len(left))
			}
		})
	}
}
