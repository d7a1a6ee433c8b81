package matchsim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	"github.com/honmaster/masterserver/host/loadtest"
	"github.com/honmaster/masterserver/wire"
)

// The load tester's "history" operation ("honmaster loadtest --mix
// match=1,history=1"): a player reads a match the run's "match" operation
// had acknowledged, as the client does — get_match_stats, a participant's
// match_history_overview and get_hero_stats, and the player's own
// get_account_all_hero_stats — and the figures shown must be the ones
// submitted: get_match_stats exactly (the match is recorded before its
// submission is acknowledged); the history entry exactly when it is there
// (a participant's share of the match may still be on its way, or newer
// matches may have pushed it out of the history). At the end of the run
// (after the match totals agreed), every account's per-hero statistics are
// compared with the matches counted. Before the first acknowledged match,
// the operation plays one (row "history>match").

// historyOp is the operation, registered with "match" (loadtest.go).
var historyOp = loadtest.Operation{Name: "history", Requests: 4, Reads: true, Do: loadHistory,
	NeedsOperator: "making a game-host account for the matches it reads",
	Fallback:      &loadtest.Fallback{Row: "history>match", As: "match", Why: "no acknowledged match yet: played one"},
	Doc: "a player reads an acknowledged match of the run (get_match_stats), a participant's history and hero statistics, " +
		"and its own statistics of every hero; the figures must be the submitted ones, and the check at the end compares " +
		"every account's hero statistics with the matches counted"}

// historyUsed is set once a run's history operation ran: its end check
// runs then only.
type historyState struct{ used atomic.Bool }

func historyOf(e *loadtest.Env) *historyState {
	return loadtest.RunState(e, areaName+".history", func() *historyState { return &historyState{} })
}

func loadHistory(ctx context.Context, e *loadtest.Env, a *loadtest.Account, rng *rand.Rand) error {
	historyOf(e).used.Store(true)
	r := loadRunOf(e)
	r.mu.Lock()
	var acked []*Match
	for _, mr := range r.matches {
		if mr.outcome == outcomeAcked {
			acked = append(acked, mr.m)
		}
	}
	r.mu.Unlock()
	if len(acked) == 0 {
		return e.Fallback(ctx, a, rng)
	}
	m := acked[rng.IntN(len(acked))]
	rep, err := GetMatchStats(ctx, e.Client(), a.Cookie(), m.MatchID)
	if err != nil {
		return loadFail(err)
	}
	if d := m.CheckMatchStats(rep); d != "" {
		return loadtest.Fail("history:match_stats", "match %d: %s", m.MatchID, d)
	}
	p := m.Players[rng.IntN(len(m.Players))]
	rep, err = HistoryOverview(ctx, e.Client(), p.Nickname, 0)
	if err != nil {
		return loadFail(err)
	}
	want := fmt.Sprintf("%d,", m.MatchID)
	for _, entry := range HistoryEntries(rep) {
		if strings.HasPrefix(entry, want) {
			if d := m.CheckHistoryEntry(entry, p); d != "" {
				return loadtest.Fail("history:entry", "%s, match %d: %s", p.Nickname, m.MatchID, d)
			}
		}
	}
	rep, err = HeroStats(ctx, e.Client(), a.Cookie(), p.Nickname, p.Hero)
	if err != nil {
		return loadFail(err)
	}
	if n, _ := rep.Int("ph_games_played"); n > 0 {
		if s, _ := rep.Str("cli_name"); s != p.Hero {
			return loadtest.Fail("history:hero_stats", "get_hero_stats of %s with %s answered hero %q", p.Nickname, p.Hero, s)
		}
	}
	if _, err := AllHeroStats(ctx, e.Client(), a.Cookie()); err != nil {
		return loadFail(err)
	}
	return nil
}

// historyCheck compares every account's statistics of every hero (its
// get_account_all_hero_stats, with its cookie of the provisioning) with
// the matches counted; the accounts in leftOut (a match whose outcome
// stayed unknown) are left out. It runs after the totals agreed: each
// share wrote the hero's totals with the totals.
func historyCheck(ctx context.Context, e *loadtest.Env, c *loadtest.Consistency, counted []*Match, leftOut map[int64]bool) {
	if !historyOf(e).used.Load() {
		return
	}
	r := loadRunOf(e)
	heroes := c.Area("matches hero statistics", "accounts' hero statistics (get_account_all_hero_stats)")
	for i, id := range r.ids {
		if leftOut[id] {
			heroes.Left++
			continue
		}
		heroes.Checked++
		rep, err := AllHeroStats(ctx, e.Client(), r.cookies[i])
		lines := HeroLines(id, counted...)
		if err != nil {
			if rep != nil && len(lines) == 0 && rep.Array != nil {
				heroes.OK++ // the empty reply of a player without a match
				continue
			}
			c.Mismatch("account %d: get_account_all_hero_stats: %v", id, err)
			continue
		}
		var got *wire.Array
		if all, ok := rep.Array.Array("all_hero_stats"); ok {
			got, _ = all.Array("public")
		}
		var d []string
		if n := 0; got != nil {
			n = got.Len()
			if n != len(lines) {
				d = append(d, fmt.Sprintf("%d heroes, want %d", n, len(lines)))
			}
		} else if len(lines) > 0 {
			d = append(d, "no heroes")
		}
		for hero, line := range lines {
			h, _ := got.Array(hero)
			if h == nil {
				d = append(d, "no "+hero)
				continue
			}
			d = append(d, diffArray(hero, h, heroWant("ph_", line))...)
		}
		if len(d) > 0 {
			c.Mismatch("account %d: hero statistics: %s", id, strings.Join(d, "; "))
			continue
		}
		heroes.OK++
	}
}
