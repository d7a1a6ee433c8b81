package actors

import (
	"context"
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/honmaster/masterserver/storage"
)

func TestReleaseDue(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		at    time.Duration // since t0
		total int64         // passivations counted
		want  bool
	}{
		{0, 10, false},                                     // below the threshold of 100
		{2 * time.Second, 150, false},                      // reached, but the wave goes on
		{4 * time.Second, 150, true},                       // settled: released (see below)
		{6 * time.Second, 400, false},                      // a new wave, but within the least gap
		{20 * time.Second, 400, false},                     // settled, still within the gap
		{36 * time.Second, 400, true},                      // gap passed
		{40 * time.Second, 520, false},                     // a wave that never pauses ...
		{70 * time.Second, 640, false},                     // (gap passed, not settled, not waited long enough)
		{40*time.Second + releaseMaxWait, 760, true},       // ... is released after releaseMaxWait
		{50*time.Second + releaseMaxWait, 760 + 99, false}, // below the threshold again
	}
	var r releaseState
	for i, st := range steps {
		now := t0.Add(st.at)
		got := r.due(now, st.total, 100)
		if got != st.want {
			t.Fatalf("step %d (%v, %d passivations): due = %t, want %t", i, st.at, st.total, got, st.want)
		}
		if got {
			r.released(now, st.total)
		}
	}
	if n := r.releases.Load(); n != 3 {
		t.Errorf("releases = %d, want 3", n)
	}
}

func TestShardCompactsAfterShrinking(t *testing.T) {
	s := newSystem(t, Options{ReleaseMemoryAfter: -1})
	sh := newShard(s)
	for i := range 2000 {
		sh.children[storage.AccountID(i+1)] = &child{}
		sh.peak = max(sh.peak, len(sh.children))
	}
	for i := range 1400 {
		delete(sh.children, storage.AccountID(i+1))
	}
	if sh.compact() {
		t.Fatal("compacted at 600 of a peak of 2000")
	}
	for i := 1400; i < 1600; i++ {
		delete(sh.children, storage.AccountID(i+1))
	}
	before := sh.children
	if !sh.compact() {
		t.Fatal("not compacted at 400 of a peak of 2000")
	}
	if len(sh.children) != 400 || sh.peak != 400 || sh.children[2000] != before[2000] || sh.children[1600] != nil {
		t.Fatalf("after compact: %d children, peak %d", len(sh.children), sh.peak)
	}
	if sh.compact() {
		t.Error("compacted again with nothing removed")
	}
}

// TestIdleTimeoutChangesLive: live actors spawned under a long idle timeout
// are passivated once it is lowered, and a wave of passivations releases
// memory once.
func TestIdleTimeoutChangesLive(t *testing.T) {
	s := newSystem(t, Options{IdleTimeout: time.Hour, ReleaseMemoryAfter: 20})
	ctx := context.Background()
	for i := range 30 {
		a := create(t, s, "idle"+string(rune('a'+i)), "")
		if _, err := s.Apply(ctx, a.ID, addTickets{1}); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.Live(); n != 30 {
		t.Fatalf("live = %d, want 30", n)
	}
	s.SetIdleTimeout(time.Millisecond)
	if got := s.IdleTimeout(); got != time.Millisecond {
		t.Fatalf("IdleTimeout() = %v", got)
	}
	// The sweeps and the releaser's checks come every few milliseconds and
	// seconds; two minutes is a bound for a machine that is stalled, not a
	// deadline the test measures.
	for give := time.Now().Add(2 * time.Minute); s.Live() > 0 || s.MemoryReleases() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(give) {
			t.Fatalf("after 2 minutes: %d live, %d releases", s.Live(), s.MemoryReleases())
		}
	}
	if n := s.passivations.Load(); n != 30 {
		t.Errorf("passivations = %d, want 30", n)
	}
}

// TestSweepStopsAFewAtATime: a shard whose sweep finds many idle actors
// tells at most maxSweepStops of them at a time to stop, the next as each
// one stops, until all have.
func TestSweepStopsAFewAtATime(t *testing.T) {
	s := newSystem(t, Options{Shards: 1, IdleTimeout: time.Hour})
	ctx := context.Background()
	const n = 6 * maxSweepStops
	for i := range n {
		a := create(t, s, fmt.Sprintf("sweep%02d", i), "")
		if _, err := s.Apply(ctx, a.ID, addTickets{1}); err != nil {
			t.Fatal(err)
		}
	}
	s.SetIdleTimeout(time.Millisecond)
	for give := time.Now().Add(2 * time.Minute); s.Live() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(give) {
			t.Fatalf("after 2 minutes: %d live", s.Live())
		}
	}
	sh := s.shards[0]
	sh.mu.Lock()
	peak, stopping, queued := sh.peakStopping, sh.stopping, len(sh.idle)
	sh.mu.Unlock()
	if peak < 1 || peak > maxSweepStops {
		t.Errorf("at most %d actors stopping at once, want 1 to %d", peak, maxSweepStops)
	}
	if stopping != 0 || queued != 0 {
		t.Errorf("all stopped: %d still counted as stopping, %d queued", stopping, queued)
	}
	if got := s.passivations.Load(); got != n {
		t.Errorf("passivations = %d, want %d", got, n)
	}
}

// TestLiveAccountHoldsNoCredentials: on Pebble a live account's state goes
// without its SRP salt and verifier, which stay stored through its changes.
func TestLiveAccountHoldsNoCredentials(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	cred := storage.SRPVerifier{Salt: []byte{1, 2, 3}, Salt2: "abcdefghijklmnopqrstuv", Verifier: []byte{7, 8, 9}}
	a, err := s.CreateAccount(ctx, &NewAccount{Login: "creds", Account: storage.Account{Nickname: "creds", SRP: cred}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(ctx, a.ID, addTickets{5}); err != nil {
		t.Fatal(err)
	}
	if p := s.Published(a.ID); p == nil || len(p.SRP.Salt)+len(p.SRP.Verifier)+len(p.SRP.Salt2) != 0 {
		t.Fatalf("published state: %+v", p)
	}
	got, err := s.DB().Credentials(a.ID)
	if err != nil || string(got.Verifier) != string(cred.Verifier) || got.Salt2 != cred.Salt2 {
		t.Fatalf("Credentials = %+v, %v", got, err)
	}
}

// TestReleaseDropsPassivatedSessions: a memory release keeps in the session
// cache only the sessions of live accounts, and tells its hooks which
// accounts are live; a dropped session still works (read from storage) and
// is cached again.
func TestReleaseDropsPassivatedSessions(t *testing.T) {
	s := newSystem(t, Options{IdleTimeout: time.Hour, SessionCacheSize: 64})
	ctx := context.Background()
	live, idle := create(t, s, "stays", ""), create(t, s, "leaves", "")
	cookies := map[storage.AccountID]string{live.ID: "00112233445566778899aabbccddeeff", idle.ID: "ffeeddccbbaa99887766554433221100"}
	for id, cookie := range cookies {
		sess := &storage.Session{Cookie: cookie, AccountID: id, SuperID: id, IP: "1.2.3.4", Expires: time.Now().Add(time.Hour).UTC()}
		if _, err := s.Apply(ctx, id, putSession{sess}); err != nil {
			t.Fatal(err)
		}
	}
	s.shardOf(idle.ID).release(idle.ID)
	for give := time.Now().Add(2 * time.Minute); s.isLive(idle.ID); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(give) {
			t.Fatal("the released account is still live after 2 minutes")
		}
	}
	if n := s.CachedSessions(); n != 2 {
		t.Fatalf("cached sessions before the release: %d, want 2", n)
	}
	var asked map[storage.AccountID]bool
	s.OnMemoryRelease(func(isLive func(storage.AccountID) bool) {
		asked = map[storage.AccountID]bool{live.ID: isLive(live.ID), idle.ID: isLive(idle.ID)}
	})
	s.releaseMemory()
	if !asked[live.ID] || asked[idle.ID] || len(asked) != 2 {
		t.Errorf("the release hook was told live %v, want %d live and %d not", asked, live.ID, idle.ID)
	}
	if n := s.CachedSessions(); n != 1 {
		t.Fatalf("cached sessions after the release: %d, want 1 (the live account's)", n)
	}
	if _, ok := s.sessions.Get(cacheKey(storage.SessionHash(cookies[live.ID]))); !ok {
		t.Error("the live account's session left the cache")
	}
	got, err := s.Session(cookies[idle.ID])
	if err != nil || got.AccountID != idle.ID {
		t.Fatalf("the passivated account's session after the release: %+v, %v", got, err)
	}
	if n := s.CachedSessions(); n != 2 {
		t.Errorf("cached sessions after reading it: %d, want 2", n)
	}
}

// TestAccountActorSize: every live account has an actor (this struct) and
// a routing entry (child); 100k players online hold 100k of each, so their
// sizes are a budget: 96 and 48 bytes, the allocator's size classes they
// fill (they were 144 and 64 before the areas' caches and the held
// requests moved behind pointers and the fields were packed; the child
// now also holds the published state, which was a sync.Map entry).
func TestAccountActorSize(t *testing.T) {
	if got := unsafe.Sizeof(account{}); got > 96 {
		t.Errorf("account is %d bytes, over its 96-byte budget", got)
	}
	if got := unsafe.Sizeof(child{}); got > 48 {
		t.Errorf("child is %d bytes, over its 48-byte budget", got)
	}
}

// TestRegistryBuckets: the system's process registry has registryBuckets
// maps, and the processes the actor system registered before they were
// swapped in (the event stream) are still found.
func TestRegistryBuckets(t *testing.T) {
	s := newSystem(t, Options{})
	if n := len(s.as.ProcessRegistry.LocalPIDs.LocalPIDs); n != registryBuckets {
		t.Fatalf("%d registry buckets, want %d", n, registryBuckets)
	}
	if _, ok := s.as.ProcessRegistry.GetLocal("eventstream"); !ok {
		t.Error("the event stream is no longer in the registry")
	}
	a := create(t, s, "bucketed", "")
	if _, err := s.Apply(context.Background(), a.ID, addTickets{1}); err != nil {
		t.Fatal(err)
	}
	if s.Live() != 1 {
		t.Fatalf("live = %d, want 1", s.Live())
	}
}
