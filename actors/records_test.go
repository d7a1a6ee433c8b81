package actors

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/honmaster/masterserver/storage"
)

// grantMany gives an account n upgrades in one change.
type grantMany struct {
	prefix string
	n      int
}

func (g grantMany) Apply(tx *Tx) (any, error) {
	for i := 0; i < g.n; i++ {
		tx.AddUpgrade(storage.Upgrade{ID: fmt.Sprintf("%s.Item_%05d", g.prefix, i)})
	}
	return nil, nil
}

// gain adds one upgrade the way an area's change does (append).
type gain struct{ id string }

func (g gain) Apply(tx *Tx) (any, error) {
	a := tx.Account()
	a.Tickets--
	if a.Owns(g.id) {
		return nil, errors.New("owned")
	}
	a.Upgrades = append(a.Upgrades, storage.Upgrade{ID: g.id})
	return nil, nil
}

// TestWriteCostIndependentOfOwned: a change writes only the records it
// altered, so the bytes a drop-like change (a debit and one upgrade) puts
// in the log do not grow with what the account owns.
func TestWriteCostIndependentOfOwned(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	written := map[int]uint64{}
	for _, owned := range []int{0, 4000} {
		a := create(t, s, fmt.Sprintf("W%d", owned), "")
		if _, err := s.Apply(ctx, a.ID, addTickets{100}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Apply(ctx, a.ID, grantMany{"ai", owned}); err != nil {
			t.Fatal(err)
		}
		before := s.DB().Stats().WALBytes
		const n = 20
		for i := 0; i < n; i++ {
			if _, err := s.Apply(ctx, a.ID, gain{fmt.Sprintf("aa.Prize_%d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		written[owned] = (s.DB().Stats().WALBytes - before) / n
		// Memory and storage agree.
		mem, _ := s.Account(ctx, a.ID)
		disk, err := s.DB().Account(a.ID)
		if err != nil || len(mem.Upgrades) != owned+n || len(disk.Upgrades) != owned+n || disk.Tickets != 100-n || mem.Tickets != disk.Tickets {
			t.Fatalf("owned %d: memory %d upgrades/%d tickets, disk %d/%d (%v)", owned, len(mem.Upgrades), mem.Tickets, len(disk.Upgrades), disk.Tickets, err)
		}
		if disk.Upgrades[owned+n-1].ID != "aa.Prize_19" {
			t.Errorf("order lost: last upgrade %s", disk.Upgrades[owned+n-1].ID)
		}
	}
	t.Logf("bytes written per change: %v", written)
	for owned, b := range written {
		if b == 0 || b > 2048 {
			t.Errorf("owning %d: %d bytes written per change, want 1..2048", owned, b)
		}
	}
	if written[4000] > written[0]+64 {
		t.Errorf("write cost grows with owned items: %v", written)
	}
}

// TestUnchangedRecordsNotWritten: a change touching only balances does not
// rewrite the lists record, and a change that edits nothing writes nothing.
func TestUnchangedRecordsNotWritten(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "U", "")
	if _, err := s.Apply(ctx, a.ID, addTickets{1}); err != nil {
		t.Fatal(err)
	}
	before := s.DB().Stats().WALBytes
	if _, err := s.Apply(ctx, a.ID, viewEditor{}); err != nil {
		t.Fatal(err)
	}
	if got := s.DB().Stats().WALBytes - before; got != 0 {
		t.Errorf("a read-only change wrote %d bytes", got)
	}
}

// TestIDWrapRefused: ids are uint32; once the sequence would wrap, or
// points at an existing account, creation is refused instead of
// overwriting an account.
func TestIDWrapRefused(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	first := create(t, s, "First", "")
	setNext := func(id uint32) {
		b := s.DB().NewBatch()
		b.SetNextAccountID(storage.AccountID(id))
		if err := s.DB().Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	setNext(0xFFFFFFFF)
	last := create(t, s, "Last", "")
	if last.ID != 0xFFFFFFFF {
		t.Fatalf("last id %d", last.ID)
	}
	for _, tc := range []struct {
		name string
		next uint32
	}{{"wrapped", 0}, {"existing", uint32(first.ID)}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name != "wrapped" {
				setNext(tc.next)
			} else if n, _ := s.DB().NextAccountID(); n != 0 {
				t.Fatalf("next id after 2^32-1 is %d", n)
			}
			_, err := s.CreateAccount(ctx, &NewAccount{Login: "Wrap" + tc.name})
			if !errors.Is(err, ErrIDSpace) {
				t.Fatalf("err = %v, want ErrIDSpace", err)
			}
			if a, err := s.DB().Account(first.ID); err != nil || a.Login != "First" {
				t.Errorf("account 1 is now %+v, %v", a, err)
			}
			if _, err := s.DB().LoginID("Wrap" + tc.name); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("refused login was indexed: %v", err)
			}
		})
	}
	_ = binary.BigEndian
}

type putSession struct{ s *storage.Session }

func (p putSession) Apply(tx *Tx) (any, error) { return nil, tx.PutSession(p.s) }

type delSession struct{ s *storage.Session }

func (p delSession) Apply(tx *Tx) (any, error) { return nil, tx.DeleteSession(p.s) }

// TestSessionCache: a session written by its account's actor is served
// from memory; a delete is seen at once; the stored session survives a
// restart of the actors; only its hash is the key.
func TestSessionCache(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := New(db, Options{SessionCacheSize: 64})
	ctx := context.Background()
	a := create(t, s, "S", "")
	cookie := "00112233445566778899aabbccddeeff"
	sess := &storage.Session{Cookie: cookie, AccountID: a.ID, SuperID: a.ID, IP: "1.2.3.4", Expires: time.Now().Add(time.Hour).UTC()}
	if _, err := s.Apply(ctx, a.ID, putSession{sess}); err != nil {
		t.Fatal(err)
	}
	if s.CachedSessions() != 1 {
		t.Errorf("cached %d sessions after a write, want 1", s.CachedSessions())
	}
	got, err := s.Session(cookie)
	if err != nil || got.Cookie != cookie || got.IP != "1.2.3.4" {
		t.Fatalf("Session = %+v, %v", got, err)
	}
	if _, err := db.SessionByKey(storage.SessionHash(cookie)); err != nil {
		t.Fatalf("stored under the hash: %v", err)
	}
	s.Shutdown()

	s2 := New(db, Options{SessionCacheSize: 64})
	defer s2.Shutdown()
	if s2.CachedSessions() != 0 {
		t.Fatal("fresh system has cached sessions")
	}
	if got, err := s2.Session(cookie); err != nil || got.AccountID != a.ID {
		t.Fatalf("after restart: %+v, %v", got, err)
	}
	if s2.CachedSessions() != 1 {
		t.Errorf("a read did not fill the cache")
	}
	if _, err := s2.Apply(ctx, a.ID, delSession{sess}); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Session(cookie); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("deleted session still served: %v", err)
	}
}

// TestAccountSessionList: the account's list of sessions follows its
// session writes, in separate changes and within one (where Tx.Sessions
// sees what the change did so far), oldest first; a failed change leaves
// it as it was.
func TestAccountSessionList(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "L", "")
	base := time.Now().UTC()
	sess := func(n int) *storage.Session {
		return &storage.Session{Cookie: fmt.Sprintf("%032x", n), AccountID: a.ID, SuperID: a.ID,
			Created: base.Add(time.Duration(n) * time.Second), Expires: base.Add(time.Hour)}
	}
	listed := func() []string {
		t.Helper()
		list, err := s.DB().AccountSessions(a.ID)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, x := range list {
			keys = append(keys, fmt.Sprintf("%x", x.Hash[:2]))
		}
		return keys
	}
	key := func(n int) string { h := storage.SessionHash(sess(n).Cookie); return fmt.Sprintf("%x", h[:2]) }
	for _, n := range []int{2, 1} {
		if _, err := s.Apply(ctx, a.ID, putSession{sess(n)}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := listed(), []string{key(1), key(2)}; !slices.Equal(got, want) {
		t.Fatalf("after two puts: %v, want %v (oldest first)", got, want)
	}
	var seen int
	_, err := s.Apply(ctx, a.ID, ChangeFunc[any](func(tx *Tx) (any, error) {
		if err := tx.PutSession(sess(3)); err != nil {
			return nil, err
		}
		if err := tx.DeleteSession(sess(1)); err != nil {
			return nil, err
		}
		list, err := tx.Sessions()
		seen = len(list)
		return nil, err
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := listed(), []string{key(2), key(3)}; seen != 2 || !slices.Equal(got, want) {
		t.Fatalf("after a put and a delete in one change: %v (the change saw %d), want %v", got, seen, want)
	}
	broke := errors.New("broke")
	if _, err := s.Apply(ctx, a.ID, ChangeFunc[any](func(tx *Tx) (any, error) {
		if err := tx.DeleteSession(sess(2)); err != nil {
			return nil, err
		}
		return nil, broke
	})); !errors.Is(err, broke) {
		t.Fatalf("the failing change: %v", err)
	}
	if got, want := listed(), []string{key(2), key(3)}; !slices.Equal(got, want) {
		t.Fatalf("after a failed change: %v, want %v", got, want)
	}
}

// TestPassivationReturnsMemory loads many accounts into actors, lets them
// passivate and checks that the heap comes back near where it started:
// stopped actors are not kept reachable (protoactor's PIDSet keeps a
// stopped child of a parent reachable; account actors are therefore not
// shard children).
func TestPassivationReturnsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("memory test")
	}
	// Passivation is triggered by the test (a sweep from the future), not by
	// timing: a slow machine (-race) loads the accounts at its own pace.
	s := newSystem(t, Options{IdleTimeout: time.Hour, SessionCacheSize: -1})
	ctx := context.Background()
	const accounts, owned = 2000, 40
	ids := make([]storage.AccountID, accounts)
	for i := range ids {
		ids[i] = create(t, s, fmt.Sprintf("M%05d", i), "").ID
		if _, err := s.Apply(ctx, ids[i], grantMany{"ai", owned}); err != nil {
			t.Fatal(err)
		}
	}
	waitIdle := func() {
		for _, sh := range s.shards {
			sh.sweep(time.Now().Add(2 * time.Hour))
		}
		deadline := time.Now().Add(20 * time.Second)
		for s.Live() != 0 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if n := s.Live(); n != 0 {
			t.Fatalf("%d actors still alive", n)
		}
	}
	heap := func() uint64 {
		var m runtime.MemStats
		for i := 0; i < 3; i++ {
			runtime.GC()
		}
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	waitIdle()
	base := heap()
	for _, id := range ids {
		if _, err := s.Read(ctx, id, func(a *storage.Account) any { return len(a.Upgrades) }); err != nil {
			t.Fatal(err)
		}
	}
	if s.Live() != accounts {
		t.Fatalf("only %d actors live after loading", s.Live())
	}
	loaded := heap()
	waitIdle()
	after := heap()
	t.Logf("heap: base %d KB, %d live accounts %d KB, after passivation %d KB", base>>10, accounts, loaded>>10, after>>10)
	grown := int64(loaded) - int64(base)
	if grown < int64(accounts)*1024 {
		t.Fatalf("loading %d accounts grew the heap by only %d bytes: the test measures nothing", accounts, grown)
	}
	if kept := int64(after) - int64(base); kept > grown/4 {
		t.Errorf("after passivation the heap keeps %d of %d bytes", kept, grown)
	}
}

// TestSnapshot: the published state follows every committed change, is
// not touched by a refused one, and goes when the actor is passivated.
func TestSnapshot(t *testing.T) {
	s := newSystem(t, Options{IdleTimeout: 20 * time.Millisecond})
	ctx := context.Background()
	a := create(t, s, "P", "")
	for i := 1; i <= 3; i++ {
		if _, err := s.Apply(ctx, a.ID, addTickets{1}); err != nil {
			t.Fatal(err)
		}
		snap, err := s.Snapshot(ctx, a.ID)
		if err != nil || snap.Tickets != int64(i) {
			t.Fatalf("after change %d: snapshot %+v, %v", i, snap, err)
		}
	}
	if _, err := s.Apply(ctx, a.ID, addTickets{-100}); !errors.Is(err, errBroke) {
		t.Fatal(err)
	}
	if snap, _ := s.Snapshot(ctx, a.ID); snap.Tickets != 3 {
		t.Errorf("refused change published: %d", snap.Tickets)
	}
	deadline := time.Now().Add(time.Minute) // a bound for a stalled machine
	for s.Live() != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if s.Published(a.ID) != nil {
		t.Error("a passivated account is still published")
	}
	if snap, err := s.Snapshot(ctx, a.ID); err != nil || snap.Tickets != 3 {
		t.Errorf("reloaded snapshot %+v, %v", snap, err)
	}
	if _, err := s.Snapshot(ctx, 999); !errors.Is(err, ErrNoAccount) {
		t.Errorf("unknown account: %v", err)
	}
}

// editLists edits one list of the account (or, with which "", only its
// balance).
type editLists struct{ which string }

func (e editLists) Apply(tx *Tx) (any, error) {
	a := tx.Account()
	switch e.which {
	case "buddies":
		a.Buddies = append(a.Buddies, storage.Buddy{ID: 9, Nickname: "b"})
	case "buddy status": // an edit in place of an existing entry
		a.Buddies[0].Status = 3
	case "selected":
		a.SelectedUpgrades = append(a.SelectedUpgrades, "cc.x")
	case "notification":
		a.Notifications = append(a.Notifications, storage.Notification{ID: 1, Sender: "s", Date: time.Unix(1700000000, 0).UTC()})
	case "chatrooms":
		a.Chatrooms = append(a.Chatrooms, "room")
	case "":
		a.Tickets++
	}
	return nil, nil
}

// Every edit of a list reaches storage (the lists record is skipped only
// when its lists are unchanged), including an edit in place of an entry,
// and a balance-only change leaves the lists record alone.
func TestListsWrittenOnlyWhenChanged(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "L", "")
	for _, which := range []string{"buddies", "buddy status", "selected", "notification", "chatrooms", ""} {
		if _, err := s.Apply(ctx, a.ID, editLists{which}); err != nil {
			t.Fatalf("%s: %v", which, err)
		}
	}
	got, err := s.DB().Account(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Buddies) != 1 || got.Buddies[0].Status != 3 || len(got.SelectedUpgrades) != 1 ||
		len(got.Notifications) != 1 || len(got.Chatrooms) != 1 {
		t.Fatalf("stored lists %+v %+v %+v %+v", got.Buddies, got.SelectedUpgrades, got.Notifications, got.Chatrooms)
	}
	before := s.DB().Stats().WALBytes
	if _, err := s.Apply(ctx, a.ID, editLists{""}); err != nil {
		t.Fatal(err)
	}
	balanceOnly := s.DB().Stats().WALBytes - before
	before = s.DB().Stats().WALBytes
	if _, err := s.Apply(ctx, a.ID, editLists{"chatrooms"}); err != nil {
		t.Fatal(err)
	}
	if withLists := s.DB().Stats().WALBytes - before; withLists <= balanceOnly {
		t.Errorf("a list edit wrote %d bytes, a balance edit %d: the lists record is missing", withLists, balanceOnly)
	}
}
