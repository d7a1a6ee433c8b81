package guides

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	rules "github.com/honmaster/masterserver/plugins/guides"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// fakeAuth knows cookie -> account.
func fakeAuth(cookies map[string]storage.AccountID) Authenticator {
	return AuthFunc(func(cookie string) (storage.AccountID, error) {
		if id, ok := cookies[cookie]; ok {
			return id, nil
		}
		return 0, Fail(ReasonInvalidCookie, errors.New("unknown cookie"))
	})
}

// memBackend is a reference model of Backend over memory, built from the
// same pieces phase 2's actors use: Marks per account, RankFacts, the
// bundled ranking, ListEntries and a Tally. (The mutex stands in for the
// actors' one-writer-per-account; a real backend has none.)
type memBackend struct {
	mu     sync.Mutex
	guides map[GuideID]*Guide
	marks  map[storage.AccountID]*Marks
	tally  *Tally
	rank   func(rules.RankFacts) rules.RankDecision
	accept func(rules.VoteFacts) rules.VoteDecision
	calls  int // every Backend call
	// voteErr, when set, fails a vote after its spend, nothing written
	// (a plugin that did not answer, a full disk).
	voteErr error
}

func newMemBackend(gs ...Guide) *memBackend {
	b := &memBackend{guides: map[GuideID]*Guide{}, marks: map[storage.AccountID]*Marks{},
		tally: &Tally{}, rank: rules.Rank, accept: rules.AcceptVote}
	for i := range gs {
		g := gs[i]
		b.guides[g.Gid] = &g
	}
	return b
}

func (b *memBackend) marksOf(acct storage.AccountID) *Marks {
	if b.marks[acct] == nil {
		b.marks[acct] = &Marks{}
	}
	return b.marks[acct]
}

func (b *memBackend) visible(gid GuideID) (*Guide, error) {
	g, ok := b.guides[gid]
	if !ok || g.Hidden {
		return nil, Fail(ReasonNotFound, nil)
	}
	return g, nil
}

func (b *memBackend) List(_ context.Context, acct storage.AccountID, hero string) ([]ListEntry, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls++
	var gs []*Guide
	for _, g := range b.guides {
		gs = append(gs, g)
	}
	m := b.marksOf(acct)
	f := RankFacts(acct, hero, gs, m, b.tally)
	d := b.rank(f)
	return ListEntries(acct, f, d, RankedCounts(f.Candidates, d.Order), func(gid GuideID) *Guide { return b.guides[gid] }, m)
}

func (b *memBackend) Guide(_ context.Context, acct storage.AccountID, gid GuideID) (GuideView, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls++
	g, err := b.visible(gid)
	if err != nil {
		return GuideView{}, err
	}
	return GuideView{Guide: *g, Counts: b.tally.Counts(g), Flags: b.marksOf(acct).Flags(g)}, nil
}

func (b *memBackend) SetFlag(_ context.Context, acct storage.AccountID, gid GuideID, flag Flag, on bool, spend func() error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls++
	g, err := b.visible(gid)
	if err != nil {
		return err
	}
	m := b.marksOf(acct)
	if f := m.Flags(g); spend != nil && (flag == FlagDefault && f.Default != on || flag == FlagFavorite && f.Favorite != on) {
		if err := spend(); err != nil {
			return err
		}
	}
	_, err = m.SetFlag(g, flag, on)
	return err
}

func (b *memBackend) Vote(_ context.Context, acct storage.AccountID, gid GuideID, v Vote, spend func() error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls++
	g, err := b.visible(gid)
	if err != nil {
		return err
	}
	m := b.marksOf(acct)
	if m.Votes[gid] != v && spend != nil {
		if err := spend(); err != nil {
			return err
		}
	}
	if b.voteErr != nil {
		return b.voteErr
	}
	if !b.accept(rules.VoteFacts{Account: rules.AccountID(acct), Gid: gid, Author: rules.AccountID(g.Author), Previous: m.Votes[gid], New: v}).Counts {
		return Fail(ReasonVoteRefused, nil)
	}
	prev, err := m.SetVote(gid, v)
	if err != nil {
		return err
	}
	b.tally.Apply("", gid, Ballot{Vote: prev}, Ballot{Vote: v}) // after the "commit"
	return nil
}

// changed reports whether any account has a mark.
func (b *memBackend) changed() bool {
	for _, m := range b.marks {
		if len(m.Defaults)+len(m.Favorites)+len(m.Votes) > 0 {
			return true
		}
	}
	return false
}

// harness is the area over a memBackend with two accounts.
type harness struct {
	t    *testing.T
	area *Area
	be   *memBackend
	fns  map[Func]func(context.Context, *wire.Request) []byte
}

const (
	acctA, acctB = storage.AccountID(7), storage.AccountID(8)
	cookieA      = "cookie-a"
	cookieB      = "cookie-b"
)

func newHarness(t *testing.T, gs ...Guide) *harness {
	be := newMemBackend(gs...)
	h := &harness{t: t, area: New(fakeAuth(map[string]storage.AccountID{cookieA: acctA, cookieB: acctB}), be, nil), be: be}
	h.fns = map[Func]func(context.Context, *wire.Request) []byte{}
	for _, f := range h.area.Functions() {
		h.fns[f.Name] = func(ctx context.Context, r *wire.Request) []byte { return f.Handler(ctx, r).Body }
	}
	return h
}

// call runs fn as account 7 (cookie-a) with extra fields and decodes the reply.
func (h *harness) call(fn Func, kv ...string) *wire.Array {
	h.t.Helper()
	return h.callAs(cookieA, "7", fn, kv...)
}

func (h *harness) callAs(cookie, account string, fn Func, kv ...string) *wire.Array {
	h.t.Helper()
	r := formRequest(append([]string{"f", string(fn), "account", account, "cookie", cookie, "hosttime", "1620573527"}, kv...)...)
	body := h.fns[fn](context.Background(), r)
	v, err := wire.Unmarshal(body)
	if err != nil {
		h.t.Fatalf("%s: reply %q: %v", fn, body, err)
	}
	return v.(*wire.Array)
}

func get(a *wire.Array, key string) any {
	v, _ := a.Get(key)
	return v
}

func wantFail(t *testing.T, a *wire.Array, errText string) {
	t.Helper()
	if a.Len() != 5 || get(a, "errors") != errText || get(a, "success") != int64(0) || get(a, "hosttime") != "1620573527" {
		t.Fatalf("reply %v, want the 5-entry failure %q", a, errText)
	}
}

func listGids(t *testing.T, a *wire.Array) []string {
	t.Helper()
	if get(a, "success") != int64(1) || a.Len() != 6 {
		t.Fatalf("list reply %v", a)
	}
	text := get(a, "guide_list").(string)
	if text == "" {
		return nil
	}
	var gids []string
	for _, e := range strings.Split(text, "`") {
		gids = append(gids, strings.SplitN(e, "|", 2)[0])
	}
	return gids
}

func testGuides() []Guide {
	at := time.Date(2021, 5, 9, 15, 18, 47, 0, time.UTC)
	g := func(gid GuideID, hero string, up, down uint32, premium bool) Guide {
		return Guide{Gid: gid, Hero: hero, Name: "G", AuthorName: "x", Edited: at, Up: up, Down: down, Premium: premium}
	}
	gs := []Guide{
		g(1, "Hero_A", 9, 1, false), g(2, "Hero_A", 1, 1, false), g(3, "Hero_A", 0, 0, true),
		g(4, "Hero_A", 0, 0, false), g(5, "Hero_B", 1, 0, false), g(6, "Hero_A", 99, 0, false),
	}
	gs[5].Hidden = true
	gs[1].Author, gs[1].AuthorName = acctA, "alice"
	return gs
}

func TestListOrderAndFlags(t *testing.T) {
	h := newHarness(t, testGuides()...)
	if got := strings.Join(listGids(t, h.call(FuncList, "hero", "Hero_A")), ","); got != "3,1,2,4" {
		t.Fatalf("order = %s, want premium 3, then 1 (0.90), 2 (0.50), 4 (no votes); hidden 6 absent", got)
	}
	if a := h.call(FuncDefaultSet, "gid", "4"); get(a, "set") != int64(1) || get(a, "success") != int64(1) {
		t.Fatalf("default set: %v", a)
	}
	if a := h.call(FuncFavoriteSet, "gid", "2"); get(a, "set") != int64(1) {
		t.Fatalf("favorite set: %v", a)
	}
	a := h.call(FuncList, "hero", "Hero_A")
	if got := strings.Join(listGids(t, a), ","); got != "4,3,2,1" {
		t.Fatalf("order = %s, want default 4, premium 3, favorite 2, then 1", got)
	}
	entries := strings.Split(get(a, "guide_list").(string), "`")
	for i, want := range []string{
		"4|05/09/21 03:18:47pm|x|G|is_def|not_fav|0.00|not_yours|0",
		"3|05/09/21 03:18:47pm|x|G|not_def|not_fav|0.00|not_yours|1",
		"2|05/09/21 03:18:47pm|alice|G|not_def|is_fav|0.50|is_yours|0",
		"1|05/09/21 03:18:47pm|x|G|not_def|not_fav|0.90|not_yours|0",
	} {
		if entries[i] != want {
			t.Errorf("entry %d = %q, want %q", i, entries[i], want)
		}
	}
	// Another account sees none of A's flags.
	if got := strings.Join(listGids(t, h.callAs(cookieB, "8", FuncList, "hero", "Hero_A")), ","); got != "3,1,2,4" {
		t.Fatalf("account 8 order = %s", got)
	}
	// Another default for the hero replaces the first; removes round-trip.
	h.call(FuncDefaultSet, "gid", "1")
	if got := listGids(t, h.call(FuncList, "hero", "Hero_A")); got[0] != "1" || strings.Count(get(h.call(FuncList, "hero", "Hero_A"), "guide_list").(string), "is_def") != 1 {
		t.Fatalf("after a second default: %v", got)
	}
	if a := h.call(FuncDefaultRemove, "gid", "1"); get(a, "set") != int64(0) || get(a, "success") != int64(1) {
		t.Fatalf("default remove: %v", a)
	}
	h.call(FuncFavoriteRemove, "gid", "2")
	if got := strings.Join(listGids(t, h.call(FuncList, "hero", "Hero_A")), ","); got != "3,1,2,4" {
		t.Fatalf("after removes: %s", got)
	}
	if got := listGids(t, h.call(FuncList, "hero", "Hero_Nobody")); got != nil {
		t.Fatalf("hero without guides: %v", got)
	}
}

func TestGetGuideAndVote(t *testing.T) {
	h := newHarness(t, testGuides()...)
	a := h.call(FuncGuide, "hero", "Hero_A", "gid", "1")
	if a.Len() != 22 || get(a, "thumb") != ThumbNone || get(a, "rating") != "0.90" || get(a, "default") != int64(0) {
		t.Fatalf("get_guide before voting: %v", a)
	}
	if _, has := a.Get("vote"); has {
		t.Fatal("vote key sent to a requester who has not voted")
	}
	v := h.call(FuncVote, "v", "1", "gid", "1", "compendium_guide", "1")
	if v.Len() != 6 || get(v, "vote") != int64(1) || get(v, "success") != int64(1) {
		t.Fatalf("vote reply %v", v)
	}
	a = h.call(FuncGuide, "hero", "Hero_A", "gid", "1")
	if a.Len() != 23 || get(a, "thumb") != ThumbUp || get(a, "vote") != int64(1) || get(a, "rating") != "0.91" {
		t.Fatalf("get_guide after voting up: %v", a)
	}
	// Repeating the vote changes nothing.
	h.call(FuncVote, "v", "1", "gid", "1")
	if r := get(h.call(FuncGuide, "gid", "1"), "rating"); r != "0.91" {
		t.Fatalf("repeated vote moved the rating to %v", r)
	}
	// Changing it moves both counts: 9 up, 2 down.
	if v := h.call(FuncVote, "v", "0", "gid", "1"); get(v, "vote") != int64(0) {
		t.Fatalf("vote down reply %v", v)
	}
	a = h.call(FuncGuide, "gid", "1")
	if get(a, "thumb") != ThumbDown || get(a, "vote") != int64(0) || get(a, "rating") != "0.82" {
		t.Fatalf("get_guide after voting down: %v", a)
	}
	if c := h.be.tally.Derived(1); c != (Counts{Up: 0, Down: 1}) {
		t.Fatalf("derived counts %+v", c)
	}
}

func TestVoteRefused(t *testing.T) {
	h := newHarness(t, testGuides()...)
	h.be.accept = func(f rules.VoteFacts) rules.VoteDecision { return rules.VoteDecision{Counts: f.Author != f.Account} }
	wantFail(t, h.call(FuncVote, "v", "1", "gid", "2"), "vote_refused") // guide 2 is account 7's
	if c := h.be.tally.Derived(2); c != (Counts{}) {
		t.Fatalf("refused vote counted: %+v", c)
	}
	if a := h.call(FuncVote, "v", "1", "gid", "1"); get(a, "success") != int64(1) {
		t.Fatalf("vote on another's guide: %v", a)
	}
}

func TestFailures(t *testing.T) {
	for _, tt := range []struct {
		name           string
		cookie, acct   string
		fn             Func
		kv             []string
		errText        string
		backendReached bool
	}{
		{"probe gid", cookieA, "7", FuncGuide, []string{"gid", "99999"}, "no_guides_found", false},
		{"unknown gid", cookieA, "7", FuncGuide, []string{"gid", "424242"}, "no_guides_found", true},
		{"hidden gid", cookieA, "7", FuncGuide, []string{"gid", "6"}, "no_guides_found", true},
		{"flag on unknown gid", cookieA, "7", FuncFavoriteSet, []string{"gid", "424242"}, "no_guides_found", true},
		{"vote on probe gid", cookieA, "7", FuncVote, []string{"v", "1", "gid", "99999"}, "no_guides_found", false},
		{"bad cookie list", "nope", "7", FuncList, []string{"hero", "Hero_A"}, "invalid_cookie", false},
		{"bad cookie vote", "nope", "7", FuncVote, []string{"v", "1", "gid", "1"}, "invalid_cookie", false},
		{"empty cookie flag", "", "7", FuncDefaultSet, []string{"gid", "1"}, "invalid_cookie", false},
		{"other account's id", cookieA, "8", FuncVote, []string{"v", "1", "gid", "1"}, "wrong_account", false},
		{"other account's id, flag", cookieA, "8", FuncDefaultSet, []string{"gid", "1"}, "wrong_account", false},
		{"bad v", cookieA, "7", FuncVote, []string{"v", "5", "gid", "1"}, "bad_request", false},
		{"bad hero", cookieA, "7", FuncList, []string{"hero", "x"}, "bad_request", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, testGuides()...)
			wantFail(t, h.callAs(tt.cookie, tt.acct, tt.fn, tt.kv...), tt.errText)
			if reached := h.be.calls > 0; reached != tt.backendReached {
				t.Fatalf("backend reached = %v, want %v", reached, tt.backendReached)
			}
			// Nothing changed: no flag, no vote.
			if h.be.changed() || h.be.tally.Derived(1) != (Counts{}) {
				t.Fatal("a failed request changed state")
			}
		})
	}
}

func TestHostTimeVerbatim(t *testing.T) {
	h := newHarness(t, testGuides()...)
	for _, ht := range []string{"1620573527", " 0012.50 ", "", "é\x00'|`"} {
		for _, fn := range []Func{FuncList, FuncGuide, FuncVote} {
			r := formRequest("f", string(fn), "account", "7", "cookie", cookieA, "hosttime", ht, "hero", "Hero_A", "gid", "1", "v", "1")
			v, err := wire.Unmarshal(h.fns[fn](context.Background(), r))
			if err != nil || get(v.(*wire.Array), "hosttime") != ht || get(v.(*wire.Array), "success") != int64(1) {
				t.Fatalf("%s with hosttime %q: %v, %v", fn, ht, v, err)
			}
		}
		// Failures echo it too.
		r := formRequest("account", "7", "cookie", "bad", "hosttime", ht, "hero", "Hero_A")
		v, _ := wire.Unmarshal(h.fns[FuncList](context.Background(), r))
		if get(v.(*wire.Array), "hosttime") != ht {
			t.Fatalf("failure lost hosttime %q: %v", ht, v)
		}
	}
}

func TestFailBeforeHandler(t *testing.T) {
	h := newHarness(t)
	v, err := wire.Unmarshal(h.area.Fail(wire.ErrBodyTooLarge).Body)
	if err != nil {
		t.Fatal(err)
	}
	a := v.(*wire.Array)
	if a.Len() != 5 || get(a, "errors") != "bad_request" || get(a, "success") != int64(0) {
		t.Fatalf("Fail = %v", a)
	}
}

func TestFunctionsTable(t *testing.T) {
	h := newHarness(t)
	seen := map[Func]bool{}
	for _, f := range h.area.Functions() {
		if seen[f.Name] || f.Handler == nil {
			t.Fatalf("%s listed twice or without a handler", f.Name)
		}
		seen[f.Name] = true
	}
	if len(seen) != 7 {
		t.Fatalf("%d functions, want 7", len(seen))
	}
}

// A replacement ranking's order is what the list shows; a decision naming a
// guide that is not a candidate is refused, not repaired.
func TestReplacementRanking(t *testing.T) {
	h := newHarness(t, testGuides()...)
	h.be.rank = func(f rules.RankFacts) rules.RankDecision {
		var d rules.RankDecision
		for _, c := range f.Candidates {
			d.Order = append([]GuideID{c.Gid}, d.Order...) // descending gid
		}
		return d
	}
	if got := strings.Join(listGids(t, h.call(FuncList, "hero", "Hero_A")), ","); got != "4,3,2,1" {
		t.Fatalf("order = %s, want the plugin's 4,3,2,1", got)
	}
	h.be.rank = func(rules.RankFacts) rules.RankDecision { return rules.RankDecision{Order: []GuideID{1, 6}} } // 6 is hidden
	wantFail(t, h.call(FuncList, "hero", "Hero_A"), "guides_unavailable")
}

// A session store that fails is an internal error, not a bad cookie, and
// reaches no backend.
func TestAuthenticatorFailure(t *testing.T) {
	be := newMemBackend(testGuides()...)
	area := New(AuthFunc(func(string) (storage.AccountID, error) { return 0, errors.New("disk") }), be, nil)
	for _, f := range area.Functions() {
		r := formRequest("account", "7", "cookie", cookieA, "hosttime", "1620573527", "hero", "Hero_A", "gid", "1", "v", "1")
		v, err := wire.Unmarshal(f.Handler(context.Background(), r).Body)
		if err != nil {
			t.Fatal(err)
		}
		wantFail(t, v.(*wire.Array), "internal_error")
	}
	if be.calls != 0 {
		t.Fatalf("backend reached %d times", be.calls)
	}
}
