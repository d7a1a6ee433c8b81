package guides

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/honmaster/masterserver/host/loadtest"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/wire"
)

// The area's load-test operations ("honmaster loadtest --mix vote=2,...").
// guide, guideflag and vote use the guides the demo heroes' lists show at
// provisioning (the run fails without any); with vote in the mix, every
// guide voted on has its counts read through the operator API before the
// run, after it, and once the test accounts are removed.
func init() {
	loadtest.RegisterArea(loadtest.Area{Name: areaName, Provision: loadProvision, Check: loadCheck, Removed: loadRemoved,
		Operations: []loadtest.Operation{
			{Name: "guides", Requests: 1, Reads: true, Do: loadGuides,
				Doc: "a hero's guide list (get_guide_list_filtered): success with the hosttime echoed (a hero without guides lists empty)"},
			{Name: "guide", Requests: 1, Reads: true, Do: loadGuide,
				Doc: "get_guide of a guide of the demo heroes: the guide asked for, with the account's default, favorite and vote as its replies left them"},
			{Name: "guideflag", Requests: 1, Do: loadGuideFlag,
				Doc: "sets or removes (whichever changes it) the account's default or favorite mark on a guide (guide_default_set/remove, " +
					"guide_favorite_set/remove); set must say which"},
			{Name: "vote", Requests: 1, Do: loadVote,
				Doc: "guide_vote on a guide: the opposite of the account's last vote on it (both counts move), else up or down at random; " +
					"the check at the end compares the server's counts (operator API) with the accounts' final votes"},
		}})
}

// loadHeroes are the heroes whose guide lists the guides operation reads,
// and where provisioning finds the guides the other operations use.
var loadHeroes = []string{"Hero_Pyromancer", "Hero_Devourer", "Hero_Hammerstorm", "Hero_Legionnaire"}

// loadRun is what the area's operations share over a run.
type loadRun struct {
	guides []loadGuideRef // guides of the demo heroes, found at provisioning
	// before holds every guide's counts before the run (with vote in the
	// mix and the operator listener; nil otherwise).
	before map[uint32]loadCounts

	mu    sync.Mutex
	voted map[uint32]bool // guides the run voted on
}

// loadGuideRef is a guide the guide operations use, found at provisioning
// in the heroes' lists (what a player sees).
type loadGuideRef struct {
	hero string
	gid  uint32
}

// loadMarks is what one account's replies said about its guide flags and
// votes.
type loadMarks struct {
	defaults  map[string]uint32 // hero -> the account's default
	favorites map[uint32]bool
	votes     map[uint32]int // gid -> 1 up, 0 down: the last vote the server acknowledged
	// unknown holds, for each guide with a vote of unknown outcome since
	// the last acknowledged one (its reply lost, or saying so), what the
	// account's vote on it may be: -1 none, 0 down, 1 up. The vote check
	// accepts counts that any choice of them explains.
	unknown map[uint32]map[int]bool
	// flagsUnknown: a flag reply was lost, flags are no longer checked.
	flagsUnknown bool
}

func loadRunOf(e *loadtest.Env) *loadRun {
	return loadtest.RunState(e, areaName, func() *loadRun { return &loadRun{voted: map[uint32]bool{}} })
}

func loadMarksOf(a *loadtest.Account) *loadMarks {
	return loadtest.AccountState(a, areaName, func() *loadMarks {
		return &loadMarks{defaults: map[string]uint32{}, favorites: map[uint32]bool{}, votes: map[uint32]int{}, unknown: map[uint32]map[int]bool{}}
	})
}

// loadNoUsableReply is loadtest.NoReply, or a reply that could not be read
// (an HTTP error status, an undecodable body): the guide marks and votes it
// was to confirm are then unknown.
func loadNoUsableReply(err error) bool {
	k := loadtest.Kind(err)
	return loadtest.NoReply(err) || k == "decode" || strings.HasPrefix(k, "http_")
}

// loadCall posts one guide function with the fields every guide request
// carries, and checks the reply's hosttime echo and success.
func loadCall(ctx context.Context, e *loadtest.Env, a *loadtest.Account, f Func, fields url.Values) (*wire.Array, error) {
	fields.Set("f", string(f))
	fields.Set("account", a.ID())
	fields.Set("cookie", a.Cookie())
	host := strconv.FormatInt(rand.Int64N(1<<40), 10)
	fields.Set("hosttime", host)
	arr, err := e.Post(ctx, server.PathClientRequester, fields, 200)
	if err != nil {
		return nil, err
	}
	if h, _ := arr.String("hosttime"); h != host {
		return nil, loadtest.Fail("decode", "%s: hosttime %q, sent %q", f, h, host)
	}
	if n, _ := arr.Int("success"); n != 1 {
		msg, _ := arr.String("errors")
		if msg == ReasonTooManyChanges.Message() {
			return nil, loadtest.Fail("refused:"+msg, "%s: %s: past the server's marks per account or per address; "+
				"for a load test turn them off (limits.toggles_per_account and toggles_per_address, as bench/loadtest.toml)", f, msg)
		}
		return nil, loadtest.Fail("refused:"+msg, "%s: %s", f, msg)
	}
	return arr, nil
}

// loadProvision finds the guides of the demo heroes (the run fails without
// any when guide, guideflag or vote is in the mix) and, with vote in the
// mix, reads every guide's counts before the run.
func loadProvision(ctx context.Context, e *loadtest.Env) error {
	r := loadRunOf(e)
	if e.InMix("guide", "guideflag", "vote") {
		var err error
		if r.guides, err = loadFindGuides(ctx, e, e.Accounts()[0]); err != nil {
			return fmt.Errorf("guide lists: %w", err)
		}
		if len(r.guides) == 0 {
			return fmt.Errorf("the server lists no guide for %s: the guide operations need some (serve --demo seeds them; or honmaster guides import)",
				strings.Join(loadHeroes, ", "))
		}
	}
	if e.InMix("vote") && e.HasOperator() {
		var err error
		if r.before, err = loadGuideCounts(ctx, e); err != nil {
			return fmt.Errorf("guide counts before the run: %w", err)
		}
	}
	return nil
}

// loadFindGuides reads the heroes' guide lists (at provisioning).
func loadFindGuides(ctx context.Context, e *loadtest.Env, a *loadtest.Account) ([]loadGuideRef, error) {
	var out []loadGuideRef
	for _, hero := range loadHeroes {
		arr, err := loadCall(ctx, e, a, FuncList, url.Values{"hero": {hero}})
		if err != nil {
			return nil, err
		}
		list, _ := arr.String("guide_list")
		if list == "" {
			continue // no guides for this hero
		}
		for _, entry := range strings.Split(list, "`") {
			gid, _, _ := strings.Cut(entry, "|")
			n, err := strconv.ParseUint(gid, 10, 32)
			if err != nil || n == 0 {
				return nil, loadtest.Fail("decode", "guide list entry %.80q", entry)
			}
			out = append(out, loadGuideRef{hero: hero, gid: uint32(n)})
		}
	}
	return out, nil
}

func (r *loadRun) randomGuide(rng *rand.Rand) (loadGuideRef, error) {
	if len(r.guides) == 0 {
		return loadGuideRef{}, loadtest.Fail("no_guides", "no guide found at provisioning")
	}
	return r.guides[rng.IntN(len(r.guides))], nil
}

func loadGuides(ctx context.Context, e *loadtest.Env, a *loadtest.Account, rng *rand.Rand) error {
	_, err := loadCall(ctx, e, a, FuncList, url.Values{"hero": {loadHeroes[rng.IntN(len(loadHeroes))]}})
	return err
}

// loadGuide reads one guide (get_guide): it must be the guide asked for,
// and show the account's own flags and vote as its replies left them.
func loadGuide(ctx context.Context, e *loadtest.Env, a *loadtest.Account, rng *rand.Rand) error {
	g, err := loadRunOf(e).randomGuide(rng)
	if err != nil {
		return err
	}
	gid := strconv.FormatUint(uint64(g.gid), 10)
	arr, err := loadCall(ctx, e, a, FuncGuide, url.Values{"hero": {g.hero}, "gid": {gid}})
	if err != nil {
		return err
	}
	if h, _ := arr.String("hero_cli_name"); h != g.hero {
		return loadtest.Fail("record", "get_guide %s: hero %q, want %s", gid, h, g.hero)
	}
	m := loadMarksOf(a)
	vote, voted := arr.Int("vote")
	if want, has := m.votes[g.gid]; m.unknown[g.gid] == nil && (voted != has || (has && vote != int64(want))) {
		return loadtest.Fail("guide_state", "get_guide %s: vote %d (present %t), the replies said %d (voted %t)", gid, vote, voted, want, has)
	}
	if m.flagsUnknown {
		return nil
	}
	fav, _ := arr.Int("favorite")
	if (fav == 1) != m.favorites[g.gid] {
		return loadtest.Fail("guide_state", "get_guide %s: favorite %d, the replies said %t", gid, fav, m.favorites[g.gid])
	}
	def, _ := arr.Int("default")
	if (def == 1) != (m.defaults[g.hero] == g.gid) {
		return loadtest.Fail("guide_state", "get_guide %s: default %d, the replies said %t", gid, def, m.defaults[g.hero] == g.gid)
	}
	return nil
}

// loadGuideFlag sets or removes (whichever changes it) the account's
// default or favorite mark on a guide.
func loadGuideFlag(ctx context.Context, e *loadtest.Env, a *loadtest.Account, rng *rand.Rand) error {
	g, err := loadRunOf(e).randomGuide(rng)
	if err != nil {
		return err
	}
	m := loadMarksOf(a)
	var f Func
	var on bool
	if rng.IntN(2) == 0 {
		on = m.defaults[g.hero] != g.gid
		f = map[bool]Func{true: FuncDefaultSet, false: FuncDefaultRemove}[on]
	} else {
		on = !m.favorites[g.gid]
		f = map[bool]Func{true: FuncFavoriteSet, false: FuncFavoriteRemove}[on]
	}
	arr, err := loadCall(ctx, e, a, f, url.Values{"gid": {strconv.FormatUint(uint64(g.gid), 10)}})
	if err != nil {
		if loadNoUsableReply(err) {
			m.flagsUnknown = true
		}
		return err
	}
	set, ok := arr.Int("set")
	if !ok || (set == 1) != on {
		return loadtest.Fail("decode", "%s: set %d", f, set)
	}
	switch f {
	case FuncDefaultSet:
		m.defaults[g.hero] = g.gid
	case FuncDefaultRemove:
		delete(m.defaults, g.hero)
	case FuncFavoriteSet:
		m.favorites[g.gid] = true
	case FuncFavoriteRemove:
		delete(m.favorites, g.gid)
	}
	return nil
}

// loadVote votes on a guide: the opposite of the account's last vote on it
// (a changed vote moves both counts), or up or down at random for a first
// vote. The vote check at the end compares the server's counts with the
// accounts' final votes.
func loadVote(ctx context.Context, e *loadtest.Env, a *loadtest.Account, rng *rand.Rand) error {
	r := loadRunOf(e)
	g, err := r.randomGuide(rng)
	if err != nil {
		return err
	}
	m := loadMarksOf(a)
	v := rng.IntN(2)
	if prev, ok := m.votes[g.gid]; ok {
		v = 1 - prev
	}
	r.noteVoted(g.gid)
	arr, err := loadCall(ctx, e, a, FuncVote, url.Values{"gid": {strconv.FormatUint(uint64(g.gid), 10)}, "v": {strconv.Itoa(v)}})
	if err != nil {
		if loadNoUsableReply(err) || loadtest.Kind(err) == "refused:"+ReasonOutcomeUnknown.Message() {
			m.voteUnknown(g.gid, v) // the vote may or may not have counted
		}
		return err
	}
	if echo, ok := arr.Int("vote"); !ok || echo != int64(v) {
		m.voteUnknown(g.gid, v)
		return loadtest.Fail("decode", "guide_vote: vote %d, sent %d", echo, v)
	}
	m.votes[g.gid] = v
	delete(m.unknown, g.gid) // an acknowledged vote is the account's vote
	return nil
}

// voteUnknown records a vote v on gid of unknown outcome: the account's
// vote is the one before (or none), or v.
func (m *loadMarks) voteUnknown(gid uint32, v int) {
	alt := m.unknown[gid]
	if alt == nil {
		prev, ok := m.votes[gid]
		if !ok {
			prev = -1
		}
		alt = map[int]bool{prev: true}
		m.unknown[gid] = alt
	}
	alt[v] = true
}

func (r *loadRun) noteVoted(gid uint32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.voted[gid] = true
}

// loadCounts is a guide's full counts as the consistency check compares
// them (signed, for differences), from the operator API's guides route (APIGuide).
type loadCounts struct{ Up, Down int64 }

// loadGuideCounts reads every guide's counts through the operator API.
func loadGuideCounts(ctx context.Context, e *loadtest.Env) (map[uint32]loadCounts, error) {
	var list []APIGuide
	if err := e.OperatorGet(ctx, PathOperatorAPI, nil, &list); err != nil {
		return nil, err
	}
	out := make(map[uint32]loadCounts, len(list))
	for _, g := range list {
		out[g.Gid] = loadCounts{Up: int64(g.Up), Down: int64(g.Down)}
	}
	return out, nil
}

// loadCheck compares the counts of the guides voted on after the run with
// those before plus the accounts' final votes (loadCheckVotes).
func loadCheck(ctx context.Context, e *loadtest.Env, c *loadtest.Consistency) {
	if !e.InMix("vote") {
		return
	}
	r := loadRunOf(e)
	if r.before == nil {
		c.Skip("no operator listener to read guide counts from")
		return
	}
	var marks []*loadMarks
	for _, a := range e.Accounts() {
		marks = append(marks, loadMarksOf(a))
	}
	// A cluster's nodes converge to the counts (each rescans the vote
	// records every 10 x cluster.sync_interval): they are read again until
	// they match, within the run's bound (Options.Converge).
	e.Converged(ctx, c, func(c *loadtest.Consistency) {
		after, err := loadGuideCounts(ctx, e)
		if err != nil {
			c.Mismatch("guide counts after the run: %v", err)
			c.Area(loadVotesCheck, loadVotesWhat).Checked++ // counted as a mismatch
			return
		}
		loadCheckVotes(c, r.before, after, r.voted, marks)
	})
}

// loadRemoved compares the counts of the guides voted on, once the test
// accounts were removed, with those before the run (loadCheckRestored),
// within the run's convergence bound as loadCheck.
func loadRemoved(ctx context.Context, e *loadtest.Env, c *loadtest.Consistency) {
	r := loadRunOf(e)
	if !e.InMix("vote") || r.before == nil {
		return
	}
	e.Converged(ctx, c, func(c *loadtest.Consistency) {
		after, err := loadGuideCounts(ctx, e)
		if err != nil {
			c.Mismatch("guide counts after removing the accounts: %v", err)
			c.Area(loadRestoredCheck, loadRestoredWhat).Checked++ // counted as a mismatch
			return
		}
		loadCheckRestored(c, r.before, after, r.voted)
	})
}

// The guides area's end-of-run checks in the report
// (loadtest.Consistency.Area): loadVotesCheck, the guides voted on whose
// counts are those before the run plus the run's votes (loadCheckVotes);
// loadRestoredCheck, those whose counts are back to those before the run
// once the test accounts were removed (loadCheckRestored).
const (
	loadVotesCheck    = "guides votes"
	loadVotesWhat     = "guides' vote counts"
	loadRestoredCheck = "guides votes restored"
	loadRestoredWhat  = "guides' vote counts back once the accounts were removed"
)

// loadCheckVotes compares, for every guide voted on, the server's counts
// with the counts before the run plus the accounts' final votes (each
// account's last acknowledged vote counts once): an account whose last
// vote on a guide has an unknown outcome counts as any of the votes it may
// have (loadMarks.unknown). A guide with more such accounts than
// loadMaxUnknownVotes is left out.
func loadCheckVotes(c *loadtest.Consistency, before, after map[uint32]loadCounts, voted map[uint32]bool, accts []*loadMarks) {
	check := c.Area(loadVotesCheck, loadVotesWhat)
	want := map[uint32][2]int64{} // gid -> up, down added by the run
	maybe := map[uint32][]map[int]bool{}
	for _, m := range accts {
		for gid, alt := range m.unknown {
			maybe[gid] = append(maybe[gid], alt)
		}
		for gid, v := range m.votes {
			if m.unknown[gid] == nil {
				w := want[gid]
				w[1-v]++ // v 1 (up) adds to index 0, v 0 (down) to index 1
				want[gid] = w
			}
		}
	}
	for gid := range voted {
		if len(maybe[gid]) > loadMaxUnknownVotes {
			check.Left++
			continue
		}
		check.Checked++
		b, a, w := before[gid], after[gid], want[gid]
		if loadVoteSums(maybe[gid])[[2]int64{a.Up - b.Up - w[0], a.Down - b.Down - w[1]}] {
			check.OK++
		} else {
			c.Mismatch("guide %d: server has %d up %d down; before the run %d up %d down, plus the run's %d up %d down and %d votes of unknown outcome",
				gid, a.Up, a.Down, b.Up, b.Down, w[0], w[1], len(maybe[gid]))
		}
	}
}

// loadMaxUnknownVotes bounds the accounts with a vote of unknown outcome
// on one guide that its check follows (the choices double with each).
const loadMaxUnknownVotes = 12

// loadVoteSums is every (up, down) the votes of unknown outcome may add:
// each account's one of its alternatives.
func loadVoteSums(alts []map[int]bool) map[[2]int64]bool {
	sums := map[[2]int64]bool{{0, 0}: true}
	for _, alt := range alts {
		next := map[[2]int64]bool{}
		for s := range sums {
			for v := range alt {
				switch v {
				case 1:
					next[[2]int64{s[0] + 1, s[1]}] = true
				case 0:
					next[[2]int64{s[0], s[1] + 1}] = true
				default:
					next[s] = true
				}
			}
		}
		sums = next
	}
	return sums
}

// loadCheckRestored compares the counts after the test accounts were
// removed with those before the run: a deleted account's votes no longer
// count.
func loadCheckRestored(c *loadtest.Consistency, before, after map[uint32]loadCounts, voted map[uint32]bool) {
	check := c.Area(loadRestoredCheck, loadRestoredWhat)
	for _, gid := range slices.Sorted(maps.Keys(voted)) {
		check.Checked++
		if b, a := before[gid], after[gid]; a.Up != b.Up || a.Down != b.Down {
			c.Mismatch("guide %d after removing the accounts: %d up %d down, before the run %d up %d down", gid, a.Up, a.Down, b.Up, b.Down)
		} else {
			check.OK++
		}
	}
}
