package loadtest

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/honmaster/masterserver/host/guides"
	"github.com/honmaster/masterserver/host/operator"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/wire"
)

// guideRef is a guide the guide operations use, found at provisioning in
// the heroes' lists (what a player sees).
type guideRef struct {
	hero string
	gid  uint32
}

// guideMarks is what one account's replies said about its guide flags and
// votes (only one operation at a time uses an account).
type guideMarks struct {
	defaults  map[string]uint32 // hero -> the account's default
	favorites map[uint32]bool
	votes     map[uint32]int // gid -> 1 up, 0 down: the last vote the server acknowledged
	// unknown holds guides whose vote reply was lost: the account's vote on
	// them is not known, so the vote check leaves them out.
	unknown map[uint32]bool
	// flagsUnknown: a flag reply was lost, flags are no longer checked.
	flagsUnknown bool
}

func newGuideMarks() *guideMarks {
	return &guideMarks{defaults: map[string]uint32{}, favorites: map[uint32]bool{}, votes: map[uint32]int{}, unknown: map[uint32]bool{}}
}

// guideCall posts one guide function with the fields every guide request
// carries, and checks the reply's hosttime echo and success.
func guideCall(ctx context.Context, e *env, a *account, f guides.Func, fields url.Values) (*wire.Array, error) {
	fields.Set("f", string(f))
	fields.Set("account", a.id)
	fields.Set("cookie", a.sess.Cookie)
	host := strconv.FormatInt(rand.Int64N(1<<40), 10)
	fields.Set("hosttime", host)
	arr, _, err := post(ctx, e.c, server.PathClientRequester, fields, 200)
	if err != nil {
		return nil, err
	}
	if h, _ := arr.String("hosttime"); h != host {
		return nil, fail("decode", "%s: hosttime %q, sent %q", f, h, host)
	}
	if n, _ := arr.Int("success"); n != 1 {
		msg, _ := arr.String("errors")
		return nil, fail("refused:"+msg, "%s: %s", f, msg)
	}
	return arr, nil
}

// findGuides reads the heroes' guide lists (at provisioning).
func findGuides(ctx context.Context, e *env, a *account) ([]guideRef, error) {
	var out []guideRef
	for _, hero := range guideHeroes {
		arr, err := guideCall(ctx, e, a, guides.FuncList, url.Values{"hero": {hero}})
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
				return nil, fail("decode", "guide list entry %.80q", entry)
			}
			out = append(out, guideRef{hero: hero, gid: uint32(n)})
		}
	}
	return out, nil
}

func (e *env) randomGuide(rng *rand.Rand) (guideRef, error) {
	if len(e.guides) == 0 {
		return guideRef{}, fail("no_guides", "no guide found at provisioning")
	}
	return e.guides[rng.IntN(len(e.guides))], nil
}

// opGuide reads one guide (get_guide): it must be the guide asked for,
// and show the account's own flags and vote as its replies left them.
func opGuide(ctx context.Context, e *env, a *account, rng *rand.Rand) error {
	g, err := e.randomGuide(rng)
	if err != nil {
		return err
	}
	gid := strconv.FormatUint(uint64(g.gid), 10)
	arr, err := guideCall(ctx, e, a, guides.FuncGuide, url.Values{"hero": {g.hero}, "gid": {gid}})
	if err != nil {
		return err
	}
	if h, _ := arr.String("hero_cli_name"); h != g.hero {
		return fail("record", "get_guide %s: hero %q, want %s", gid, h, g.hero)
	}
	m := a.marks
	vote, voted := arr.Int("vote")
	if want, has := m.votes[g.gid]; !m.unknown[g.gid] && (voted != has || (has && vote != int64(want))) {
		return fail("guide_state", "get_guide %s: vote %d (present %t), the replies said %d (voted %t)", gid, vote, voted, want, has)
	}
	if m.flagsUnknown {
		return nil
	}
	fav, _ := arr.Int("favorite")
	if (fav == 1) != m.favorites[g.gid] {
		return fail("guide_state", "get_guide %s: favorite %d, the replies said %t", gid, fav, m.favorites[g.gid])
	}
	def, _ := arr.Int("default")
	if (def == 1) != (m.defaults[g.hero] == g.gid) {
		return fail("guide_state", "get_guide %s: default %d, the replies said %t", gid, def, m.defaults[g.hero] == g.gid)
	}
	return nil
}

// opGuideFlag sets or removes (whichever changes it) the account's default
// or favorite mark on a guide.
func opGuideFlag(ctx context.Context, e *env, a *account, rng *rand.Rand) error {
	g, err := e.randomGuide(rng)
	if err != nil {
		return err
	}
	m := a.marks
	var f guides.Func
	var on bool
	if rng.IntN(2) == 0 {
		on = m.defaults[g.hero] != g.gid
		f = map[bool]guides.Func{true: guides.FuncDefaultSet, false: guides.FuncDefaultRemove}[on]
	} else {
		on = !m.favorites[g.gid]
		f = map[bool]guides.Func{true: guides.FuncFavoriteSet, false: guides.FuncFavoriteRemove}[on]
	}
	arr, err := guideCall(ctx, e, a, f, url.Values{"gid": {strconv.FormatUint(uint64(g.gid), 10)}})
	if err != nil {
		if noUsableReply(err) {
			m.flagsUnknown = true
		}
		return err
	}
	set, ok := arr.Int("set")
	if !ok || (set == 1) != on {
		return fail("decode", "%s: set %d", f, set)
	}
	switch f {
	case guides.FuncDefaultSet:
		m.defaults[g.hero] = g.gid
	case guides.FuncDefaultRemove:
		delete(m.defaults, g.hero)
	case guides.FuncFavoriteSet:
		m.favorites[g.gid] = true
	case guides.FuncFavoriteRemove:
		delete(m.favorites, g.gid)
	}
	return nil
}

// opVote votes on a guide: the opposite of the account's last vote on it
// (a changed vote moves both counts), or up or down at random for a first
// vote. The vote check at the end compares the server's counts with the
// accounts' final votes.
func opVote(ctx context.Context, e *env, a *account, rng *rand.Rand) error {
	g, err := e.randomGuide(rng)
	if err != nil {
		return err
	}
	m := a.marks
	v := rng.IntN(2)
	if prev, ok := m.votes[g.gid]; ok {
		v = 1 - prev
	}
	e.noteVoted(g.gid)
	arr, err := guideCall(ctx, e, a, guides.FuncVote, url.Values{"gid": {strconv.FormatUint(uint64(g.gid), 10)}, "v": {strconv.Itoa(v)}})
	if err != nil {
		if noUsableReply(err) {
			m.unknown[g.gid] = true // the vote may or may not have counted
		}
		return err
	}
	if echo, ok := arr.Int("vote"); !ok || echo != int64(v) {
		m.unknown[g.gid] = true
		return fail("decode", "guide_vote: vote %d, sent %d", echo, v)
	}
	m.votes[g.gid] = v
	return nil
}

// votedGuides is the set of guides the run voted on.
type votedGuides struct {
	mu  sync.Mutex
	set map[uint32]bool
}

func (e *env) noteVoted(gid uint32) {
	e.voted.mu.Lock()
	defer e.voted.mu.Unlock()
	if e.voted.set == nil {
		e.voted.set = map[uint32]bool{}
	}
	e.voted.set[gid] = true
}

// guideCounts is a guide's full counts as the consistency check compares
// them (signed, for differences), from the operator API's GuideCounts.
type guideCounts struct{ Up, Down int64 }

// guideCounts reads every guide's counts through the operator API.
func (c *opClient) guideCounts(ctx context.Context) (map[uint32]guideCounts, error) {
	var list []operator.GuideCounts
	if err := c.callJSON(ctx, http.MethodGet, operator.PathGuides, nil, &list); err != nil {
		return nil, err
	}
	out := make(map[uint32]guideCounts, len(list))
	for _, g := range list {
		out[g.Gid] = guideCounts{Up: int64(g.Up), Down: int64(g.Down)}
	}
	return out, nil
}

// checkVotes compares, for every guide voted on, the server's counts with
// the counts before the run plus the accounts' final votes (each account's
// last acknowledged vote counts once). A guide with a vote whose reply was
// lost is left out.
func checkVotes(c *Consistency, before, after map[uint32]guideCounts, voted map[uint32]bool, accts []*account) {
	want := map[uint32][2]int64{} // gid -> up, down added by the run
	skip := map[uint32]bool{}
	for _, a := range accts {
		if a == nil || a.marks == nil {
			continue
		}
		for gid := range a.marks.unknown {
			skip[gid] = true
		}
		for gid, v := range a.marks.votes {
			w := want[gid]
			w[1-v]++ // v 1 (up) adds to index 0, v 0 (down) to index 1
			want[gid] = w
		}
	}
	for gid := range voted {
		if skip[gid] {
			c.VotesUncertain++
			continue
		}
		c.VotesChecked++
		b, a := before[gid], after[gid]
		w := want[gid]
		if a.Up == b.Up+w[0] && a.Down == b.Down+w[1] {
			c.VotesOK++
		} else {
			c.mismatch("guide %d: server has %d up %d down; before the run %d up %d down, plus the run's %d up %d down",
				gid, a.Up, a.Down, b.Up, b.Down, w[0], w[1])
		}
	}
}

// checkVotesRestored compares the counts after the test accounts were
// removed with those before the run: a deleted account's votes no longer
// count.
func checkVotesRestored(c *Consistency, before, after map[uint32]guideCounts, voted map[uint32]bool) {
	c.VotesRestoredChecked = true
	for gid := range voted {
		if b, a := before[gid], after[gid]; a.Up != b.Up || a.Down != b.Down {
			c.VotesRestoredOK = false
			c.mismatch("guide %d after removing the accounts: %d up %d down, before the run %d up %d down", gid, a.Up, a.Down, b.Up, b.Down)
			return
		}
	}
	c.VotesRestoredOK = true
}
