package matchsim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/loadtest"
	"github.com/honmaster/masterserver/host/matches/matchsim"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// TestHistoryEndToEnd plays two matches with the simulated game server,
// then reads them as the client does: get_match_stats, the players'
// match_history_overview and hero statistics show exactly the submitted
// figures; an unknown match is refused in the client's shape; a player
// without a match gets the empty hero statistics.
func TestHistoryEndToEnd(t *testing.T) {
	w, _ := startWorld(t, nil)
	historySequence(t, w)
}

// TestHistoryOnPostgres is TestHistoryEndToEnd over PostgreSQL (skipped
// without HONMASTER_TEST_POSTGRES_URL; .ci/postgres sets it).
func TestHistoryOnPostgres(t *testing.T) {
	pg := storagetest.PostgresURL(t)
	w, _ := startWorld(t, func(c *config.Config) {
		c.Storage.Backend, c.Storage.Postgres.URL = config.BackendPostgres, pg
	})
	historySequence(t, w)
}

func historySequence(t *testing.T, w *world) {
	ctx := context.Background()
	g := w.server(t)
	ps := w.players(t, 11)
	idle := ps[10]
	ps = ps[:10]
	m1 := start(t, g, ps, 11)
	if _, err := g.SubmitStats(ctx, m1.Form()); err != nil {
		t.Fatal(err)
	}
	m2 := start(t, g, ps, 12)
	if _, err := g.SubmitStats(ctx, m2.Form()); err != nil {
		t.Fatal(err)
	}
	checkTotals(t, w.op, want(m1, m2)) // every share applied

	for _, m := range []*matchsim.Match{m1, m2} {
		r, err := matchsim.GetMatchStats(ctx, w.c, idle.cookie, m.MatchID)
		if err != nil {
			t.Fatalf("get_match_stats %d: %v", m.MatchID, err)
		}
		if d := m.CheckMatchStats(r); d != "" {
			t.Errorf("get_match_stats %d: %s", m.MatchID, d)
		}
	}
	for _, id := range []int64{m2.MatchID + 1000, 0} {
		r, err := matchsim.GetMatchStats(ctx, w.c, idle.cookie, id)
		rep, refusedOK := matchsim.Refused(err)
		if !refusedOK || rep.Status != 200 || rep.Array == nil {
			t.Fatalf("get_match_stats of unknown match %d: %v %v", id, r, err)
		}
		if msg, _ := rep.Array.String("error"); !strings.Contains(msg, "no recorded match") {
			t.Errorf("unknown match %d: %s", id, rep)
		}
	}
	if _, err := matchsim.GetMatchStats(ctx, w.c, strings.Repeat("0", 32), m1.MatchID); err == nil {
		t.Error("get_match_stats with a dead cookie answered the match")
	}

	for i, p := range ps {
		r, err := matchsim.HistoryOverview(ctx, w.c, p.login, 0)
		if err != nil {
			t.Fatalf("match_history_overview %s: %v", p.login, err)
		}
		got := matchsim.HistoryEntries(r)
		if len(got) != 2 {
			t.Fatalf("history of %s: %q, want two matches", p.login, got)
		}
		for j, m := range []*matchsim.Match{m2, m1} { // newest first
			if d := m.CheckHistoryEntry(got[j], m.Players[i]); d != "" {
				t.Errorf("%s m%d: %s", p.login, j, d)
			}
		}
		r, err = matchsim.HistoryOverview(ctx, w.c, p.login, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := matchsim.HistoryEntries(r); len(got) != 1 || m2.CheckHistoryEntry(got[0], m2.Players[i]) != "" {
			t.Errorf("history of %s, num 1: %q", p.login, got)
		}
		for hero, line := range matchsim.HeroLines(p.id, m1, m2) {
			r, err := matchsim.HeroStats(ctx, w.c, idle.cookie, p.login, hero)
			if err != nil {
				t.Fatalf("get_hero_stats %s %s: %v", p.login, hero, err)
			}
			if d := matchsim.CheckHeroStats(r, hero, line); d != "" {
				t.Errorf("get_hero_stats %s: %s", p.login, d)
			}
		}
	}
	all, err := matchsim.AllHeroStats(ctx, w.c, ps[0].cookie)
	if err != nil {
		t.Fatal(err)
	}
	heroes, _ := all.Array.Array("all_hero_stats")
	pub, _ := heroes.Array("public")
	if lines := matchsim.HeroLines(ps[0].id, m1, m2); pub == nil || pub.Len() != len(lines) {
		t.Errorf("get_account_all_hero_stats: %s, want %d heroes", all, len(lines))
	}

	// The session record's statistics come from the recorded matches.
	for _, p := range append(ps[:3:3], idle) {
		sess, err := w.c.Login(ctx, p.login, password)
		if err != nil {
			t.Fatal(err)
		}
		infos, _ := sess.Record.Array("infos")
		st, _ := infos.Array(0)
		if st == nil {
			t.Fatalf("session record of %s has no infos[0]: %v", p.login, sess.Record)
		}
		tot := want(m1, m2)[p.id]
		if tot == nil {
			tot = &matchsim.Totals{}
		}
		for k, n := range map[string]int64{"games_played": tot.Matches, "acc_games_played": tot.Matches, "acc_wins": tot.Wins,
			"acc_losses": tot.Losses, "acc_discos": tot.Discos, "discos": tot.Discos} {
			if got, ok := matchsim.IntOf(st, k); !ok || got != n {
				t.Errorf("session record of %s: %s = %d (%v), want %d", p.login, k, got, ok, n)
			}
		}
	}

	// A player without a recorded match: the notes' empty replies.
	empty := `a:2:{s:16:"vested_threshold";i:5;i:0;b:1;}`
	for name, call := range map[string]func() (*matchsim.Reply, error){
		"get_hero_stats": func() (*matchsim.Reply, error) {
			return matchsim.HeroStats(ctx, w.c, idle.cookie, idle.login, matchsim.Heroes[0])
		},
		"get_account_all_hero_stats": func() (*matchsim.Reply, error) { return matchsim.AllHeroStats(ctx, w.c, idle.cookie) },
		"match_history_overview":     func() (*matchsim.Reply, error) { return matchsim.HistoryOverview(ctx, w.c, idle.login, 0) },
		"unknown player's history":   func() (*matchsim.Reply, error) { return matchsim.HistoryOverview(ctx, w.c, "nobody-here", 5) },
	} {
		r, err := call()
		if err != nil || string(r.Body) != empty {
			t.Errorf("%s of a player without a match: %v %v, want %s", name, r, err, empty)
		}
	}
}

// TestLoadTestHistory runs the load tester's history operation mixed with
// match: every read shows the submitted figures, and the end check
// compares every account's hero statistics, which agree.
func TestLoadTestHistory(t *testing.T) {
	ts := clitest.Start(t, clitest.LoadTestLimits)
	o := clitest.LoadTestOptions(t, ts, "match=2,history=2")
	o.Accounts, o.Concurrency, o.Requests = 20, 2, 60
	rep, err := loadtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	checkLoadTest(t, rep, 20)
	op := rep.Op("history")
	if op == nil || op.OK == 0 || op.Errors != 0 {
		t.Fatalf("history: %+v", op)
	}
	heroes := rep.Consistency.Areas["matches hero statistics"]
	if heroes == nil || heroes.Checked != 20 || heroes.OK != 20 {
		t.Errorf("hero statistics: %+v; %s %v", heroes, rep.Consistency.Summary(), rep.Consistency.Mismatches)
	}
}
