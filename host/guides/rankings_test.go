package guides_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/guides"
	rules "github.com/honmaster/masterserver/plugins/guides"
	"github.com/honmaster/masterserver/plugins/guides/guidesapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// fakeClock is the clock of the rankings' staleness: it moves only when a
// test moves it.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// gatedCaller holds rank decisions until released, when gated.
type gatedCaller struct {
	sdk.Caller
	entered chan struct{}
	release chan struct{}
}

func (g *gatedCaller) Decide(ctx context.Context, d string, facts, state []byte) (sdk.RawResult, error) {
	if d == guidesapi.Rank.Name() && g.release != nil {
		g.entered <- struct{}{}
		<-g.release
	}
	return g.Caller.Decide(ctx, d, facts, state)
}

type rankFixture struct {
	app   *cli.App
	svc   *guides.Service
	clock *fakeClock
	accts []storage.AccountID
	gate  *gatedCaller
}

// newRankFixture opens a fresh data directory with gs stored and n
// accounts, and serves the guides area on rank (in process) with the given
// staleness of reused rankings.
func newRankFixture(t testing.TB, staleness time.Duration, rank func(rules.RankFacts) rules.RankDecision, gs []guides.Guide, n int) *rankFixture {
	t.Helper()
	app, _, log := clitest.OpenApp(t)
	ctx := context.Background()
	if _, err := guides.Seed(ctx, app.Sys, gs); err != nil {
		t.Fatal(err)
	}
	f := &rankFixture{app: app, clock: &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		gate: &gatedCaller{Caller: rules.RulesPlugin("test", rank, rules.AcceptVote)}}
	for i := range n {
		a, err := app.Accounts.Create(ctx, accounts.Create{Login: fmt.Sprintf("lister%d", i), Password: "pw"})
		if err != nil {
			t.Fatal(err)
		}
		f.accts = append(f.accts, a.ID)
	}
	var err error
	f.svc, err = guides.NewService(guides.Deps{Sys: app.Sys, Login: app.Login, Decider: f.gate, Log: log,
		RankReuse: guides.RankReuse{Staleness: staleness}, Now: f.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *rankFixture) order(t *testing.T, acct storage.AccountID, hero string) []guides.GuideID {
	t.Helper()
	es, err := f.svc.List(context.Background(), acct, hero)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]guides.GuideID, len(es))
	for i, e := range es {
		out[i] = e.Gid
	}
	return out
}

func (f *rankFixture) rating(t *testing.T, acct storage.AccountID, hero string, gid guides.GuideID) string {
	t.Helper()
	es, err := f.svc.List(context.Background(), acct, hero)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.Gid == gid {
			return guides.FormatRating(e.Counts)
		}
	}
	t.Fatalf("gid %d not listed", gid)
	return ""
}

func rankGuide(gid guides.GuideID, hero string, up, down uint32, premium bool) guides.Guide {
	return guides.Guide{Gid: gid, Hero: hero, Name: fmt.Sprintf("Guide %d", gid), AuthorName: "someone",
		Edited: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Premium: premium, Start: []string{}, Laning: []string{},
		Core: []string{}, Luxury: []string{}, Abil: []string{}, Up: up, Down: down}
}

func wantGids(t *testing.T, what string, got []guides.GuideID, want ...guides.GuideID) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: order %v, want %v", what, got, want)
	}
}

// The bundled ranking is Shared: one plugin call serves every account
// with the same default and favorites, until something changes; a default
// is a different fact and is ranked (and then reused) on its own.
func TestListReusesSharedRanking(t *testing.T) {
	gs := []guides.Guide{rankGuide(1, "Hero_A", 1, 9, false), rankGuide(2, "Hero_A", 6, 4, false), rankGuide(3, "Hero_A", 9, 1, false)}
	f := newRankFixture(t, time.Second, rules.Rank, gs, 3)
	for i, a := range f.accts {
		wantGids(t, fmt.Sprintf("account %d", i), f.order(t, a, "Hero_A"), 3, 2, 1)
	}
	wantGids(t, "again", f.order(t, f.accts[0], "Hero_A"), 3, 2, 1)
	if n := f.svc.RankCalls(); n != 1 {
		t.Fatalf("%d plugin calls for 4 lists of the same facts, want 1", n)
	}
	ctx := context.Background()
	for _, a := range f.accts[:2] {
		if err := f.svc.SetFlag(ctx, a, 1, guides.FlagDefault, true, nil); err != nil {
			t.Fatal(err)
		}
	}
	wantGids(t, "with a default", f.order(t, f.accts[0], "Hero_A"), 1, 3, 2)
	wantGids(t, "same default, other account", f.order(t, f.accts[1], "Hero_A"), 1, 3, 2)
	wantGids(t, "no default", f.order(t, f.accts[2], "Hero_A"), 3, 2, 1)
	if err := f.svc.SetFlag(ctx, f.accts[2], 1, guides.FlagFavorite, true, nil); err != nil {
		t.Fatal(err)
	}
	wantGids(t, "with a favorite", f.order(t, f.accts[2], "Hero_A"), 1, 3, 2)
	if n := f.svc.RankCalls(); n != 3 {
		t.Fatalf("%d plugin calls, want 3 (no marks; default 1; favorite 1)", n)
	}
}

// A vote that changes the order is in the order of the next list once the
// staleness has passed since the reused ranking's counts were read; before
// that the order may be the earlier one, and so are the ratings shown
// with it (one snapshot, TestListOneSnapshot). With staleness 0 the next
// list is re-ranked at once.
func TestListVoteVisibleAfterStaleness(t *testing.T) {
	gs := []guides.Guide{rankGuide(1, "Hero_A", 5, 5, false), rankGuide(2, "Hero_A", 6, 4, false)}
	for _, tt := range []struct {
		name      string
		staleness time.Duration
		stale     bool // the first list after the votes still has the old order
	}{{"staleness 0", 0, false}, {"staleness 10s", 10 * time.Second, true}} {
		t.Run(tt.name, func(t *testing.T) {
			f := newRankFixture(t, tt.staleness, rules.Rank, gs, 4)
			lister := f.accts[3]
			wantGids(t, "before", f.order(t, lister, "Hero_A"), 2, 1)
			for _, a := range f.accts[:3] { // guide 1: 8/13 = 0.62 > 0.60
				if err := f.svc.Vote(context.Background(), a, 1, guides.VoteUp, nil); err != nil {
					t.Fatal(err)
				}
			}
			if r, want := f.rating(t, lister, "Hero_A", 1), map[bool]string{true: "0.50", false: "0.62"}[tt.stale]; r != want {
				t.Errorf("rating of guide 1 after the votes: %s, want %s, the counts of the order shown", r, want)
			}
			if tt.stale {
				wantGids(t, "within the staleness", f.order(t, lister, "Hero_A"), 2, 1)
				f.clock.add(tt.staleness - time.Nanosecond)
				wantGids(t, "just within the staleness", f.order(t, lister, "Hero_A"), 2, 1)
				f.clock.add(time.Nanosecond)
			}
			wantGids(t, "after the staleness", f.order(t, lister, "Hero_A"), 1, 2)
			if r := f.rating(t, lister, "Hero_A", 1); r != "0.62" {
				t.Errorf("rating of guide 1 after the staleness: %s, want the current 0.62", r)
			}
			calls := f.svc.RankCalls()
			wantGids(t, "again", f.order(t, f.accts[0], "Hero_A"), 1, 2)
			if n := f.svc.RankCalls(); n != calls {
				t.Errorf("a list with nothing changed asked the plugin again (%d calls, was %d)", n, calls)
			}
		})
	}
}

// A reused ranking never lists a guide that has been hidden since, nor
// one of another hero; marking a guide premium re-ranks at once.
func TestListReuseFollowsCatalog(t *testing.T) {
	gs := []guides.Guide{rankGuide(1, "Hero_A", 9, 1, false), rankGuide(2, "Hero_A", 5, 5, false), rankGuide(3, "Hero_A", 1, 9, false),
		rankGuide(4, "Hero_B", 9, 1, false), rankGuide(5, "Hero_B", 1, 1, false)}
	f := newRankFixture(t, time.Hour, rules.Rank, gs, 1)
	a := f.accts[0]
	wantGids(t, "hero A", f.order(t, a, "Hero_A"), 1, 2, 3)
	wantGids(t, "hero B", f.order(t, a, "Hero_B"), 4, 5)
	yes := true
	if _, err := guides.Moderate(context.Background(), f.app.Sys, 1, &yes, nil); err != nil {
		t.Fatal(err)
	}
	wantGids(t, "hero A after hiding 1", f.order(t, a, "Hero_A"), 2, 3)
	wantGids(t, "hero B after hiding 1", f.order(t, a, "Hero_B"), 4, 5)
	if _, err := guides.Moderate(context.Background(), f.app.Sys, 3, nil, &yes); err != nil {
		t.Fatal(err)
	}
	wantGids(t, "hero A after marking 3 premium", f.order(t, a, "Hero_A"), 3, 2)
	if _, err := guides.Moderate(context.Background(), f.app.Sys, 1, new(bool), nil); err != nil {
		t.Fatal(err)
	}
	wantGids(t, "hero A after unhiding 1", f.order(t, a, "Hero_A"), 3, 1, 2)
}

// byAccount ranks by gid, ascending for even accounts and descending for
// odd ones: a ranking that depends on the account, so not Shared.
func byAccount(f rules.RankFacts) rules.RankDecision {
	var order []rules.GuideID
	for _, c := range f.Candidates {
		order = append(order, c.Gid)
	}
	if f.Account%2 == 1 {
		slices.Reverse(order)
	}
	return rules.RankDecision{Order: order[:min(len(order), rules.MaxList)]}
}

// A decision that is not Shared is reused for its own account only: each
// account sees the plugin's order for it, also when the facts are
// otherwise equal.
func TestListReusesPerAccountRanking(t *testing.T) {
	gs := []guides.Guide{rankGuide(1, "Hero_A", 0, 0, false), rankGuide(2, "Hero_A", 0, 0, false), rankGuide(3, "Hero_A", 0, 0, false)}
	f := newRankFixture(t, time.Hour, byAccount, gs, 2)
	for round := range 2 {
		for _, a := range f.accts {
			want := []guides.GuideID{1, 2, 3}
			if a%2 == 1 {
				slices.Reverse(want)
			}
			wantGids(t, fmt.Sprintf("round %d, account %d", round, a), f.order(t, a, "Hero_A"), want...)
		}
	}
	if n := f.svc.RankCalls(); n != 2 {
		t.Fatalf("%d plugin calls for 2 accounts listing twice, want 2", n)
	}
}

// Concurrent lists of the same facts share one plugin call.
func TestListSingleFlight(t *testing.T) {
	gs := []guides.Guide{rankGuide(1, "Hero_A", 1, 1, false), rankGuide(2, "Hero_A", 2, 1, false), rankGuide(3, "Hero_B", 1, 1, false)}
	f := newRankFixture(t, time.Second, rules.Rank, gs, 8)
	// Learn that the plugin's decisions are Shared (flights are then keyed
	// without the account), on another hero.
	wantGids(t, "warm-up", f.order(t, f.accts[0], "Hero_B"), 3)
	f.gate.entered, f.gate.release = make(chan struct{}, len(f.accts)), make(chan struct{})
	var wg sync.WaitGroup
	orders := make([][]guides.GuideID, len(f.accts))
	errs := make([]error, len(f.accts))
	list := func(i int) {
		defer wg.Done()
		es, err := f.svc.List(context.Background(), f.accts[i], "Hero_A")
		errs[i] = err
		for _, e := range es {
			orders[i] = append(orders[i], e.Gid)
		}
	}
	wg.Add(1)
	go list(0)
	select {
	case <-f.gate.entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the first list never asked the plugin")
	}
	for i := 1; i < len(f.accts); i++ {
		wg.Add(1)
		go list(i)
	}
	// Wait (bounded) until the others wait for the first one's call.
	deadline := time.Now().Add(30 * time.Second)
	for f.svc.RankJoins() < uint64(len(f.accts)-1) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	joins := f.svc.RankJoins()
	close(f.gate.release)
	wg.Wait()
	for i := range f.accts {
		if errs[i] != nil {
			t.Fatalf("list %d: %v", i, errs[i])
		}
		wantGids(t, fmt.Sprintf("list %d", i), orders[i], 2, 1)
	}
	if joins != uint64(len(f.accts)-1) {
		t.Fatalf("%d of %d concurrent lists joined the first one's call", joins, len(f.accts)-1)
	}
	if n := f.svc.RankCalls(); n != 2 {
		t.Fatalf("%d plugin calls, want 2 (warm-up and one shared by %d lists)", n, len(f.accts))
	}
}

// BenchmarkServiceList1000 is the host's side of a list of a hero with
// 1,000 guides when the ranking is reused (no HTTP, no plugin call): the
// account's marks and plugin state read, the kept decision checked, the
// entries and their text.
func BenchmarkServiceList1000(b *testing.B) {
	gs := benchGuideSet()
	f := newRankFixture(b, time.Second, rules.Rank, gs, 1)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		es, err := f.svc.List(ctx, f.accts[0], benchHero)
		if err != nil || len(es) != guides.MaxListEntries {
			b.Fatalf("%d entries, %v", len(es), err)
		}
		_ = guides.FormatList(es)
	}
	if n := f.svc.RankCalls(); n != 1 {
		b.Fatalf("%d plugin calls, want 1", n)
	}
}

// A vote on one hero's guide re-ranks only that hero's lists: another
// hero's reused ranking stays in use (no plugin call) even after the
// staleness has passed, while the voted hero's is asked again. The same
// holds when a voter's account is deleted.
func TestVoteKeepsOtherHeroesRankings(t *testing.T) {
	gs := []guides.Guide{rankGuide(1, "Hero_A", 5, 5, false), rankGuide(2, "Hero_A", 6, 4, false),
		rankGuide(3, "Hero_B", 5, 5, false), rankGuide(4, "Hero_B", 6, 4, false)}
	f := newRankFixture(t, 0, rules.Rank, gs, 2)
	lister := f.accts[1]
	wantGids(t, "A before", f.order(t, lister, "Hero_A"), 2, 1)
	wantGids(t, "B before", f.order(t, lister, "Hero_B"), 4, 3)
	calls := f.svc.RankCalls()
	if err := f.svc.Vote(context.Background(), f.accts[0], 1, guides.VoteUp, nil); err != nil {
		t.Fatal(err)
	}
	wantGids(t, "B after a vote on A", f.order(t, lister, "Hero_B"), 4, 3)
	if n := f.svc.RankCalls(); n != calls {
		t.Errorf("a vote on Hero_A re-ranked Hero_B (%d plugin calls, was %d)", n, calls)
	}
	f.order(t, lister, "Hero_A")
	if n := f.svc.RankCalls(); n != calls+1 {
		t.Errorf("Hero_A after its vote: %d plugin calls, want %d (staleness 0 re-ranks)", n, calls+1)
	}
	// Deleting the voter takes its vote out of Hero_A's counts: Hero_A is
	// re-ranked, Hero_B still is not.
	if _, err := f.app.Accounts.Delete(context.Background(), "lister0"); err != nil {
		t.Fatal(err)
	}
	f.order(t, lister, "Hero_B")
	if n := f.svc.RankCalls(); n != calls+1 {
		t.Errorf("deleting a voter on Hero_A re-ranked Hero_B (%d plugin calls, want %d)", n, calls+1)
	}
	f.order(t, lister, "Hero_A")
	if n := f.svc.RankCalls(); n != calls+2 {
		t.Errorf("Hero_A after its voter's deletion: %d plugin calls, want %d", n, calls+2)
	}
}

// A list of a hero with no stored guide is empty and asks the plugin
// nothing: names a client makes up leave no snapshot or ranking behind.
func TestListUnknownHeroAsksNothing(t *testing.T) {
	f := newRankFixture(t, time.Second, rules.Rank, []guides.Guide{rankGuide(1, "Hero_A", 5, 5, false)}, 1)
	for i := range 100 {
		if got := f.order(t, f.accts[0], fmt.Sprintf("Hero_Made%d", i)); len(got) != 0 {
			t.Fatalf("unknown hero listed %v", got)
		}
	}
	if n := f.svc.RankCalls(); n != 0 {
		t.Fatalf("%d plugin calls for heroes with no guide, want 0", n)
	}
	wantGids(t, "a stored hero", f.order(t, f.accts[0], "Hero_A"), 1)
}

// listed is a list's order and the ratings it shows.
func (f *rankFixture) listed(t *testing.T, acct storage.AccountID, hero string) (order []guides.GuideID, ratings []string) {
	t.Helper()
	es, err := f.svc.List(context.Background(), acct, hero)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		order = append(order, e.Gid)
		ratings = append(ratings, guides.FormatRating(e.Counts))
	}
	return order, ratings
}

func wantListed(t *testing.T, what string, order []guides.GuideID, ratings []string, wantOrder []guides.GuideID, wantRatings ...string) {
	t.Helper()
	if !slices.Equal(order, wantOrder) || !slices.Equal(ratings, wantRatings) {
		t.Fatalf("%s: order %v with ratings %v, want %v with %v", what, order, ratings, wantOrder, wantRatings)
	}
}

// A list is one snapshot: its order and the ratings it shows come from the
// same counts, whether its ranking is reused after a vote (within the
// staleness) or a vote lands while the plugin ranks. Before, the ratings
// were read afresh after the order: 0.75, 0.50, 0.25, 1.00.
func TestListOneSnapshot(t *testing.T) {
	gs := []guides.Guide{rankGuide(1, "Hero_A", 3, 1, false), rankGuide(2, "Hero_A", 2, 2, false),
		rankGuide(3, "Hero_A", 1, 3, false), rankGuide(4, "Hero_A", 0, 0, false)}
	before, after := []guides.GuideID{1, 2, 3, 4}, []guides.GuideID{4, 1, 2, 3}

	t.Run("ranking reused after a vote", func(t *testing.T) {
		const staleness = 10 * time.Second
		f := newRankFixture(t, staleness, rules.Rank, gs, 2)
		lister, voter := f.accts[0], f.accts[1]
		order, ratings := f.listed(t, lister, "Hero_A")
		wantListed(t, "before the vote", order, ratings, before, "0.75", "0.50", "0.25", "0.00")
		if err := f.svc.Vote(context.Background(), voter, 4, guides.VoteUp, nil); err != nil { // guide 4: 1/1
			t.Fatal(err)
		}
		order, ratings = f.listed(t, lister, "Hero_A")
		wantListed(t, "within the staleness", order, ratings, before, "0.75", "0.50", "0.25", "0.00")
		f.clock.add(staleness)
		order, ratings = f.listed(t, lister, "Hero_A")
		wantListed(t, "after the staleness", order, ratings, after, "1.00", "0.75", "0.50", "0.25")
	})

	t.Run("vote while the plugin ranks", func(t *testing.T) {
		f := newRankFixture(t, 0, rules.Rank, gs, 2)
		lister, voter := f.accts[0], f.accts[1]
		f.gate.entered, f.gate.release = make(chan struct{}, 1), make(chan struct{})
		type result struct {
			order   []guides.GuideID
			ratings []string
			err     error
		}
		done := make(chan result, 1)
		go func() {
			es, err := f.svc.List(context.Background(), lister, "Hero_A")
			var r result
			r.err = err
			for _, e := range es {
				r.order = append(r.order, e.Gid)
				r.ratings = append(r.ratings, guides.FormatRating(e.Counts))
			}
			done <- r
		}()
		select {
		case <-f.gate.entered: // the candidates are read; the plugin ranks them
		case <-time.After(30 * time.Second):
			t.Fatal("the list never asked the plugin")
		}
		if err := f.svc.Vote(context.Background(), voter, 4, guides.VoteUp, nil); err != nil {
			t.Fatal(err)
		}
		close(f.gate.release)
		r := <-done
		if r.err != nil {
			t.Fatal(r.err)
		}
		wantListed(t, "the list ranked before the vote", r.order, r.ratings, before, "0.75", "0.50", "0.25", "0.00")
		f.gate.release = nil
		order, ratings := f.listed(t, lister, "Hero_A")
		wantListed(t, "the next list", order, ratings, after, "1.00", "0.75", "0.50", "0.25")
	})
}

// A plugin's order longer than a list is refused (guides_unavailable), as
// before the ratings came with the decision: never cut, never an internal
// error.
func TestListRefusesOverlongOrder(t *testing.T) {
	var gs []guides.Guide
	for gid := range guides.GuideID(guides.MaxListEntries + 1) {
		gs = append(gs, rankGuide(gid+1, "Hero_A", 1, 1, false))
	}
	all := func(f rules.RankFacts) rules.RankDecision {
		var order []rules.GuideID
		for _, c := range f.Candidates {
			order = append(order, c.Gid)
		}
		return rules.RankDecision{Order: order, Shared: true}
	}
	f := newRankFixture(t, time.Second, all, gs, 1)
	_, err := f.svc.List(context.Background(), f.accts[0], "Hero_A")
	if r := guides.ReasonOf(err); r != guides.ReasonUnavailable {
		t.Fatalf("List with an order of %d guides: %v (reason %v), want guides_unavailable", len(gs), err, r)
	}
}
