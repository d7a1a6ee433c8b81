package actors

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/honmaster/masterserver/storage"
)

// A recovery pass took the first maxEffectsPerPass records in id order,
// whether or not they could finish, and every pass started again from the
// first id: behind that many stuck records (here, of a kind this binary
// does not register) an effect with a later id was never resumed, and its
// share was lost. Passes now go on where the previous one stopped.
func TestResumeIsNotStarvedByStuckEffects(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	ids := funded(t, s, 1000, "stuck0", "stuck1")
	unregistered := &EffectKind{name: "test.unregistered", apply: func(*Tx, *storage.Effect, int) error { return nil }}
	for i := range maxEffectsPerPass {
		e := &storage.Effect{ID: storage.EffectID{0, byte(i >> 8), byte(i)}, Kind: unregistered.name,
			Participants: ids, Created: time.Now()}
		if i%2 == 1 { // each account's share reads its marks: keep them few
			e.Participants = []storage.AccountID{ids[1], ids[0]}
		}
		if _, err := s.applyShare(ctx, unregistered, e, 0, false); err != nil {
			t.Fatal(err)
		}
	}
	gift := funded(t, s, 100, "giver", "taker")
	e := &storage.Effect{ID: storage.EffectID{0xff}, Kind: testGift.Name(), Payload: giftOf(10), Participants: gift, Created: time.Now()}
	if _, err := s.applyShare(ctx, testGift, e, 0, false); err != nil { // Start up to its first share, then a crash
		t.Fatal(err)
	}
	for range 2 {
		if _, _, err := s.ResumeEffects(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DB().Effect(e.ID); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the gift is unfinished after two passes (%v): starved behind %d stuck records", err, maxEffectsPerPass)
	}
	wantTickets(t, s.DB(), gift, 90, 110)
}

// One stored effect record that does not decode made every recovery pass
// fail before it drove any effect. It is now counted as left, with a
// warning, and the others are resumed.
func TestResumeSkipsARecordThatDoesNotDecode(t *testing.T) {
	mem := vfs.NewMem()
	db := crashableDB(t, mem)
	s := New(db, Options{})
	ctx := context.Background()
	ids := funded(t, s, 100, "sender", "receiver")
	e := &storage.Effect{ID: storage.EffectID{0x80}, Kind: testGift.Name(), Payload: giftOf(40), Participants: ids, Created: time.Now()}
	if _, err := s.applyShare(ctx, testGift, e, 0, false); err != nil {
		t.Fatal(err)
	}
	s.Shutdown()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// A value that does not decode (torn, or written by something else)
	// under the effects' prefix, sorting first.
	setRaw(t, mem, append([]byte("f/"), make([]byte, 16)...), []byte("not a record"))
	db2 := crashableDB(t, mem)
	defer db2.Close()
	s2 := New(db2, Options{})
	defer s2.Shutdown()
	finished, left, err := s2.ResumeEffects(ctx, 0)
	if err != nil || finished != 1 || left != 1 {
		t.Errorf("resume beside a damaged record: %d finished, %d left, %v; want the gift finished and the damaged record left", finished, left, err)
	}
	wantTickets(t, db2, ids, 60, 140)
}

var poisoned atomic.Bool

// testPoison adds a ticket to each participant, except that share 1
// fails while poisoned is set (a participant whose records the share
// cannot use).
var testPoison = RegisterEffect("test.poison", func(tx *Tx, e *storage.Effect, share int) error {
	if share == 1 && poisoned.Load() {
		return errors.New("this participant's stored state is unusable")
	}
	tx.Account().Tickets++
	return nil
})

// A share that kept failing stopped every share after it, for ever: one
// player's damaged record kept the rest of a match from their statistics.
// The shares after a failing one are applied now; the last marks its
// account instead of deleting the record, and once the failing share
// succeeds the record goes (through the global writer).
func TestAFailingShareDoesNotBlockTheOthers(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	ids := funded(t, s, 0, "host", "bad", "good1", "good2")
	poisoned.Store(true)
	t.Cleanup(func() { poisoned.Store(false) })
	if _, err := testPoison.Start(ctx, s, nil, ids...); err != nil {
		t.Fatal(err)
	}
	wantTickets(t, s.DB(), ids, 1, 0, 1, 1)
	for range 2 {
		if finished, left, err := s.ResumeEffects(ctx, 0); err != nil || finished != 0 || left != 1 {
			t.Fatalf("a pass while share 1 fails: %d finished, %d left, %v", finished, left, err)
		}
	}
	wantTickets(t, s.DB(), ids, 1, 0, 1, 1) // the others' shares counted once
	if n := len(unfinished(t, s.DB())); n != 1 {
		t.Fatalf("%d records while a share is pending, want 1", n)
	}
	poisoned.Store(false)
	if finished, left, err := s.ResumeEffects(ctx, 0); err != nil || finished != 1 || left != 0 {
		t.Fatalf("the pass after the share heals: %d finished, %d left, %v", finished, left, err)
	}
	wantTickets(t, s.DB(), ids, 1, 1, 1, 1)
	if n := len(unfinished(t, s.DB())); n != 0 {
		t.Errorf("%d records after every share applied, want none", n)
	}
	if finished, left, err := s.ResumeEffects(ctx, 0); err != nil || finished+left != 0 {
		t.Errorf("a pass after the effect finished: %d finished, %d left, %v; want nothing to do", finished, left, err)
	}
}

// A record with fewer than two participants (Start writes none for a
// single share: a damaged or foreign record) was reported finished by
// every pass and never deleted. It is deleted now.
func TestResumeDropsARecordOfOneParticipant(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	ids := funded(t, s, 0, "only")
	e := &storage.Effect{ID: storage.EffectID{5}, Kind: testGift.Name(), Payload: giftOf(1), Participants: ids, Created: time.Now()}
	if _, err := s.Apply(ctx, ids[0], ChangeFunc[struct{}](func(tx *Tx) (struct{}, error) {
		storage.PutEffect(tx, e)
		return struct{}{}, nil
	})); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ResumeEffects(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if n := len(unfinished(t, s.DB())); n != 0 {
		t.Errorf("%d record(s) of one participant left after a pass, want none", n)
	}
	wantTickets(t, s.DB(), ids, 0) // and its share was not applied
}

// changedPlacement records the accounts it is told changed.
type changedPlacement struct {
	fakePlacement
	mu      sync.Mutex
	changed []storage.AccountID
}

func (p *changedPlacement) Changed(id storage.AccountID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.changed = append(p.changed, id)
}

// A transient activation takes a new owner epoch whatever its change
// answers. A recovery pass on a node that is not an account's home ran a
// share the account had applied already (a no-op) in such an activation,
// and told the home nothing, since the change "failed" (the share was
// done): the home's next forwarded request was refused (ErrMoved, "server
// busy"). The home is told whatever the change answered.
func TestANoopShareElsewhereTellsTheHome(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pa, pb := &fakePlacement{name: "a"}, &changedPlacement{fakePlacement: fakePlacement{name: "b"}}
	pa.home.Store(true) // a is every account's home, b none's
	a, b := New(db, Options{Placement: pa}), New(db, Options{Placement: pb})
	defer a.Shutdown()
	defer b.Shutdown()
	ctx := context.Background()
	ids := funded(t, a, 100, "p0", "p1", "p2")
	e := &storage.Effect{ID: storage.EffectID{9}, Kind: testGift.Name(), Payload: giftOf(1), Participants: ids, Created: time.Now()}
	for share := range 2 { // shares 0 and 1 applied on a, p1's home, whose activation stays live
		if _, err := a.applyShare(ctx, testGift, e, share, false); err != nil {
			t.Fatal(err)
		}
	}
	if finished, left, err := b.ResumeEffects(ctx, 0); err != nil || finished != 1 || left != 0 {
		t.Fatalf("b's pass: %d finished, %d left, %v", finished, left, err)
	}
	wantTickets(t, db, ids, 98, 101, 101)
	pb.mu.Lock()
	changed := slices.Clone(pb.changed)
	pb.mu.Unlock()
	if !slices.Contains(changed, ids[1]) {
		t.Fatalf("b told the homes of %v, not p1's (%d), whose share was a no-op in a transient activation", changed, ids[1])
	}
	// What the home does when told (host/cluster's Placement sends it
	// Reactivate): its next forwarded request is served.
	a.Reactivate(ids[1])
	if _, err := a.Apply(ForwardedContext(ctx), ids[1], addTickets{1}); err != nil {
		t.Errorf("a forwarded write at p1's home after it was told: %v", err)
	}
}

// A change of an account that does not exist, on a node that is not its
// home, told the home to start afresh (which activates a grain there for
// nothing); and a single-share effect, which writes no record, was taken
// for a stray record after its share: a warning and a global write.
func TestNoHomeToldOfAMissingAccountNorAGlobalWriteForOneShare(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pb := &changedPlacement{fakePlacement: fakePlacement{name: "b"}} // b is no account's home
	b := New(db, Options{Placement: pb})
	defer b.Shutdown()
	if _, err := b.Apply(context.Background(), 424242, addTickets{1}); !errors.Is(err, ErrNoAccount) {
		t.Fatalf("a change of an account that does not exist: %v", err)
	}
	pb.mu.Lock()
	changed := slices.Clone(pb.changed)
	pb.mu.Unlock()
	if len(changed) != 0 {
		t.Errorf("told the homes of %v after a change of an account that does not exist", changed)
	}

	s := newSystem(t, Options{})
	ids := funded(t, s, 0, "alone")
	before := s.GlobalVersion("effects")
	if _, err := testPoison.Start(context.Background(), s, nil, ids...); err != nil {
		t.Fatal(err)
	}
	wantTickets(t, s.DB(), ids, 1)
	if after := s.GlobalVersion("effects"); after != before {
		t.Errorf("a single-share effect moved the effects' global version %d -> %d (a global write)", before, after)
	}
}

// A damaged key (its id read as zero) where a full pass stopped made the
// next pass start from the first id again: the starvation of the stuck
// effects came back. Damaged records never stop a pass.
func TestADamagedKeyDoesNotResetTheResume(t *testing.T) {
	old := maxEffectsPerPass
	maxEffectsPerPass = 2
	t.Cleanup(func() { maxEffectsPerPass = old })
	mem := vfs.NewMem()
	db := crashableDB(t, mem)
	s := New(db, Options{EffectRetry: time.Hour})
	ctx := context.Background()
	ids := funded(t, s, 100, "a", "b")
	unregistered := &EffectKind{name: "test.unregistered2", apply: func(*Tx, *storage.Effect, int) error { return nil }}
	for i := range 2 { // two stuck effects first
		e := &storage.Effect{ID: storage.EffectID{1, byte(i)}, Kind: unregistered.name, Participants: ids, Created: time.Now()}
		if i == 1 {
			e.Participants = []storage.AccountID{ids[1], ids[0]}
		}
		if _, err := s.applyShare(ctx, unregistered, e, 0, false); err != nil {
			t.Fatal(err)
		}
	}
	gift := &storage.Effect{ID: storage.EffectID{3}, Kind: testGift.Name(), Payload: giftOf(10), Participants: ids, Created: time.Now()}
	if _, err := s.applyShare(ctx, testGift, gift, 0, false); err != nil {
		t.Fatal(err)
	}
	s.Shutdown()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// A damaged key (an id of 17 bytes) between the stuck effects and the gift.
	setRaw(t, mem, append([]byte("f/"), 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), []byte("x"))
	db2 := crashableDB(t, mem)
	defer db2.Close()
	s2 := New(db2, Options{EffectRetry: time.Hour})
	defer s2.Shutdown()
	for range 4 {
		if _, _, err := s2.ResumeEffects(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db2.Effect(gift.ID); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the gift is unfinished after 4 passes of 2 (%v): the damaged key reset the cursor", err)
	}
}

// setRaw writes key and value straight into the closed Pebble store "db"
// of mem, past storage's encoding: a record storage did not write.
func setRaw(t *testing.T, mem vfs.FS, key, value []byte) {
	t.Helper()
	raw, err := pebble.Open("db", &pebble.Options{FS: mem})
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Set(key, value, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
}
