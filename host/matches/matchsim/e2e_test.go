package matchsim_test

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/matches/matchsim"
)

// TestMatchesEndToEnd drives a real server with the simulated manager and
// game servers (one server for every subtest; each has players of its
// own, so that their totals are its alone).
func TestMatchesEndToEnd(t *testing.T) {
	w, ts := startWorld(t, nil)
	ctx := context.Background()

	t.Run("whole sequence", func(t *testing.T) { wholeSequence(t, w) })

	t.Run("long match accepted", func(t *testing.T) {
		g := w.server(t)
		ps := w.players(t, 10)
		m := start(t, g, ps, 10)
		f := m.Long()
		if n := matchsim.CountValues(f); n < 4300 {
			t.Fatalf("the long match has %d values", n)
		}
		if _, err := g.SubmitStats(ctx, f); err != nil {
			t.Fatalf("a long match (%d values): %v", matchsim.CountValues(f)+2, err)
		}
		checkTotals(t, w.op, want(m))
	})

	t.Run("hostile forms refused clearly, nothing stored, server healthy after", func(t *testing.T) {
		g := w.server(t)
		ps := w.players(t, 10)
		m := start(t, g, ps, 11)
		for _, h := range matchsim.Hostiles {
			_, err := g.SubmitStats(ctx, m.Hostile(h))
			refusedClearly(t, h.String(), err)
			// Clearly: the refusal names what was wrong with the form.
			if r, ok := matchsim.Refused(err); ok && !slices.ContainsFunc(hostileWords[h], func(w string) bool {
				return strings.Contains(strings.ToLower(string(r.Body)), w)
			}) {
				t.Errorf("%s: the refusal does not say what is wrong (%q): %s", h, hostileWords[h], r)
			}
			if rec := w.op.match(t, m.MatchID); rec.Recorded {
				t.Fatalf("%s: the match was recorded", h)
			}
		}
		checkTotals(t, w.op, zero(ps))
		if r, err := http.Get(w.c.Base + "/healthz"); err != nil || r.StatusCode != 200 {
			t.Fatalf("healthz after the hostile forms: %v %v", r, err)
		}
		if _, err := g.SubmitStats(ctx, m.Form()); err != nil {
			t.Fatalf("the match's own statistics after the hostile forms: %v", err)
		}
		checkTotals(t, w.op, want(m))
	})

	t.Run("duplicates and resubmission counted once", func(t *testing.T) {
		g := w.server(t)
		ps := w.players(t, 10)
		m := start(t, g, ps, 12)
		f := m.Form()
		for i := range 2 {
			if _, err := g.SubmitStats(ctx, f); err != nil {
				t.Fatalf("submission %d: %v", i+1, err)
			}
		}
		if _, err := w.mgr.Resubmit(ctx, m.MatchID, g.ServerID, f); err != nil {
			t.Fatalf("resubmission of a recorded match: %v", err)
		}
		_, err := w.mgr.ResubmitWith(ctx, m.MatchID, g.ServerID, matchsim.ResubmissionKey(m.MatchID+1), f)
		refusedClearly(t, "a resubmission with another match's key", err)
		checkTotals(t, w.op, want(m))

		// The manager resubmits a match its server never could (the
		// server's file), then the server's own submission arrives.
		m2 := start(t, g, ps, 13)
		f2 := m2.Form()
		if _, err := w.mgr.Resubmit(ctx, m2.MatchID, g.ServerID, f2); err != nil {
			t.Fatalf("resubmission of an unsubmitted match: %v", err)
		}
		if _, err := g.SubmitStats(ctx, f2); err != nil {
			t.Fatalf("submission after the resubmission: %v", err)
		}
		if _, err := w.mgr.Resubmit(ctx, m2.MatchID, g.ServerID, f2); err != nil {
			t.Fatalf("second resubmission: %v", err)
		}
		checkTotals(t, w.op, want(m, m2))

		// Another host's manager, with its own valid login, may not
		// resubmit this host's match; nor may a wrong password.
		other := newWorld(t, w.c, w.op, "x")
		_, err = other.mgr.Resubmit(ctx, m2.MatchID, g.ServerID, f2)
		refusedClearly(t, "another host's resubmission", err)
		wrong := matchsim.NewManager(w.c, w.host, "not the password")
		_, err = wrong.Resubmit(ctx, m2.MatchID, g.ServerID, f2)
		refusedClearly(t, "a resubmission with a wrong password", err)
		checkTotals(t, w.op, want(m, m2))
	})

	t.Run("the manager resubmits after its server shut down", func(t *testing.T) {
		g := w.server(t)
		ps := w.players(t, 10)
		m := start(t, g, ps, 21)
		if _, err := g.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		_, err := g.SubmitStats(ctx, m.Form())
		refusedClearly(t, "a submission by the session of a server that shut down", err)
		if _, err := w.mgr.Resubmit(ctx, m.MatchID, g.ServerID, m.Form()); err != nil {
			t.Fatalf("the manager's resubmission: %v", err)
		}
		checkTotals(t, w.op, want(m))
	})

	t.Run("foreign server's submission refused", func(t *testing.T) {
		owner, sibling := w.server(t), w.server(t)
		ps := w.players(t, 10)
		m := start(t, owner, ps, 14)
		// The sibling (same host) has a match of its own.
		mine := start(t, sibling, w.players(t, 2), 15)
		_, err := sibling.SubmitStats(ctx, m.Form())
		refusedClearly(t, "a sibling server's submission of another server's match", err)
		other := newWorld(t, w.c, w.op, "y")
		stranger := other.server(t)
		_, err = stranger.SubmitStats(ctx, m.Form())
		refusedClearly(t, "another host's server's submission without a started match", err)
		if rec := w.op.match(t, m.MatchID); rec.Recorded {
			t.Fatal("a foreign submission recorded the match")
		}
		checkTotals(t, w.op, zero(ps))
		if _, err := owner.SubmitStats(ctx, m.Form()); err != nil {
			t.Fatalf("the owner's submission after the foreign ones: %v", err)
		}
		if _, err := sibling.SubmitStats(ctx, mine.Form()); err != nil {
			t.Fatalf("the sibling's own match: %v", err)
		}
		checkTotals(t, w.op, want(m, mine))
	})

	t.Run("statistics of a player who never connected count for nobody", func(t *testing.T) {
		g := w.server(t)
		ps := w.players(t, 10)
		m := start(t, g, ps[:9], 18)
		outsider := ps[9]
		m.Players = append(m.Players, matchsim.Player{AccountID: outsider.id, Nickname: outsider.login, Hero: matchsim.Heroes[17],
			Team: 2, Position: 4, Kills: 30, Assists: 5})
		_, err := g.SubmitStats(ctx, m.Form())
		if err == nil {
			// Accepted: the participants' totals count it, the outsider's not.
			m.Players = m.Players[:9]
			wanted := want(m)
			wanted[outsider.id] = &matchsim.Totals{AccountID: outsider.id}
			checkTotals(t, w.op, wanted)
			t.Logf("accepted without the outsider")
			return
		}
		refusedClearly(t, "statistics naming a player who never connected", err)
		checkTotals(t, w.op, zero(ps))
	})

	t.Run("a submission where both teams won is not recorded as such", func(t *testing.T) {
		g := w.server(t)
		ps := w.players(t, 10)
		m := start(t, g, ps, 19)
		f := m.Form()
		for _, p := range m.Players {
			pre := "player_stats[" + strconv.FormatInt(p.AccountID, 10) + "][" + p.Hero + "]"
			f.Set(pre+"[wins]", "1")
			f.Set(pre+"[losses]", "0")
		}
		_, err := g.SubmitStats(ctx, f)
		refusedClearly(t, "both teams won", err)
		if w.op.match(t, m.MatchID).Recorded {
			t.Error("recorded")
		}
		checkTotals(t, w.op, zero(ps))
	})

	t.Run("negative or overflowing counters are refused", func(t *testing.T) {
		g := w.server(t)
		ps := w.players(t, 10)
		m := start(t, g, ps, 20)
		p := m.Players[0]
		pre := "player_stats[" + strconv.FormatInt(p.AccountID, 10) + "][" + p.Hero + "]"
		for field, v := range map[string]string{"herokills": "-5", "deaths": "99999999999999999999", "heroassists": "4294967297"} {
			f := m.Form()
			f.Set(pre+"["+field+"]", v)
			_, err := g.SubmitStats(ctx, f)
			refusedClearly(t, field+" "+v, err)
		}
		if w.op.match(t, m.MatchID).Recorded {
			t.Error("recorded")
		}
		checkTotals(t, w.op, zero(ps))
		if _, err := g.SubmitStats(ctx, m.Form()); err != nil {
			t.Fatalf("the match's own statistics: %v", err)
		}
		checkTotals(t, w.op, want(m))
	})

	t.Run("a player's cookie is not a server session, nor the other way round", func(t *testing.T) {
		ps := w.players(t, 2)
		fake := matchsim.NewGameServer(w.c, w.host, 99, w.password)
		fake.Session = ps[0].cookie
		_, err := fake.SetOnline(ctx, matchsim.StateIdle)
		refusedClearly(t, "set_online with a player's cookie as session", err)
		_, err = fake.StartGame(ctx)
		refusedClearly(t, "start_game with a player's cookie as session", err)
		g := w.server(t)
		m := start(t, g, ps[1:], 16)
		fake.MatchID = m.MatchID
		_, err = fake.SubmitStats(ctx, m.Form())
		refusedClearly(t, "submit_stats with a player's cookie as session", err)
		_, err = g.CConn(ctx, g.Session)
		refusedClearly(t, "c_conn of a server's session as a player's cookie", err)
		_, err = g.CConn(ctx, w.mgr.Session)
		refusedClearly(t, "c_conn of a manager's session as a player's cookie", err)
		if rec := w.op.match(t, m.MatchID); rec.Recorded {
			t.Fatal("recorded by a player's cookie")
		}
	})

	t.Run("unknown acc_key gives official 0", func(t *testing.T) {
		g := w.server(t)
		for _, key := range []string{"0123456789abcdef0123456789abcdef", "", "a[b]"} {
			off, _, err := g.AcceptKey(ctx, key)
			if err != nil {
				t.Fatalf("accept_key %q: %v", key, err)
			}
			if off != 0 {
				t.Errorf("accept_key %q: official %d, want 0", key, off)
			}
		}
	})

	t.Run("aids2cookie gives no client cookie", func(t *testing.T) {
		g := w.server(t)
		ps := w.players(t, 3)
		start(t, g, ps, 17)
		r, err := g.Aids2Cookie(ctx, ps[0].id, ps[1].id, ps[2].id)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if strings.Contains(string(r.Body), p.cookie) {
				t.Errorf("aids2cookie gave %s's client cookie: %s", p.login, r)
			}
		}
	})

	t.Run("ordinary accounts and wrong passwords may not run servers", func(t *testing.T) {
		ps := w.players(t, 1)
		_, err := matchsim.NewManager(w.c, ps[0].login, password).ReplayAuth(ctx)
		refusedClearly(t, "replay_auth of an ordinary account", err)
		_, err = matchsim.NewGameServer(w.c, ps[0].login, 1, password).NewSession(ctx)
		refusedClearly(t, "new_session of an ordinary account", err)
		_, err = matchsim.NewGameServer(w.c, w.host, 1, "wrong").NewSession(ctx)
		refusedClearly(t, "new_session with a wrong password", err)
		_, err = matchsim.NewManager(w.c, w.host, "wrong").ReplayAuth(ctx)
		refusedClearly(t, "replay_auth with a wrong password", err)
		r, err := w.mgr.ReplayAuthWith(ctx, w.host, matchsim.PasswordMD5(password))
		if err != nil || r.Status == 200 && r.Array != nil && hasSession(r) {
			t.Errorf("replay_auth without the colon: %v %v", r, err)
		}
	})
	_ = ts
}

// wholeSequence plays the protocol's sequence: the manager's login and
// spectator header, a game server's login (twice: its id is stable), its
// heartbeats, two matches of ten players with their statistics, replay
// size and shutdown; the matches are recorded with their participants
// and each player's totals count them once.
func wholeSequence(t *testing.T, w *world) {
	ctx := context.Background()
	if _, err := w.mgr.SpectatorHeader(ctx); err != nil {
		t.Errorf("get_spectator_header: %v", err)
	}
	first := w.server(t)
	g := matchsim.NewGameServer(w.c, w.host, first.Instance, w.password)
	if _, err := g.NewSession(ctx); err != nil {
		t.Fatal(err)
	}
	if g.ServerID != first.ServerID || g.ServerID == 0 {
		t.Errorf("server id %d at a second login of %s, %d at the first", g.ServerID, g.Login(), first.ServerID)
	}
	if _, err := g.SetOnline(ctx, matchsim.StateIdle); err != nil {
		t.Fatal(err)
	}
	ps := w.players(t, 10)
	m := start(t, g, ps, 1)
	if _, err := g.GetUpgrades(ctx, ps[0].cookie); err != nil {
		t.Errorf("get_upgrades: %v", err)
	}
	if _, err := g.GetQuickstats(ctx, ps[0].id); err != nil {
		t.Errorf("get_quickstats: %v", err)
	}
	if _, err := g.SubmitStats(ctx, m.Form()); err != nil {
		t.Fatalf("submit_stats: %v", err)
	}
	if _, err := g.SetReplaySize(ctx, m.MatchID, 3_000_000); err != nil {
		t.Errorf("set_replay_size: %v", err)
	}
	if _, err := g.SetOnline(ctx, matchsim.StateIdle); err != nil {
		t.Fatal(err)
	}
	rec := w.op.match(t, m.MatchID)
	var ids []int64
	for _, p := range ps {
		ids = append(ids, p.id)
	}
	slices.Sort(ids)
	got := slices.Sorted(slices.Values(rec.Participants))
	if !rec.Recorded || rec.ServerID != g.ServerID || !slices.Equal(got, ids) {
		t.Errorf("match record %+v, want recorded by server %d with participants %v", rec, g.ServerID, ids)
	}
	checkTotals(t, w.op, want(m))

	m2 := start(t, g, ps, 2)
	if m2.MatchID == m.MatchID {
		t.Fatalf("match id %d given twice", m.MatchID)
	}
	if _, err := g.SubmitStats(ctx, m2.Form()); err != nil {
		t.Fatalf("second match: %v", err)
	}
	checkTotals(t, w.op, want(m, m2))
	if _, err := g.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

// refusedClearly fails the test unless err is a refusal with a reply
// that says why: not a success, not a server error, not a dropped
// connection, and no internal names.
func refusedClearly(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted", what)
		return
	}
	r, ok := matchsim.Refused(err)
	if !ok {
		t.Errorf("%s: no reply: %v", what, err)
		return
	}
	if r.Status >= 500 {
		t.Errorf("%s: a server error: %s", what, r)
	}
	if len(strings.TrimSpace(string(r.Body))) == 0 {
		t.Errorf("%s: refused without a word: %s", what, r)
	}
	for _, bad := range []string{"panic", "goroutine", "github.com/", "runtime error", ".go:"} {
		if strings.Contains(string(r.Body), bad) {
			t.Errorf("%s: the refusal says %q: %s", what, bad, r)
		}
	}
	t.Logf("%s: %s", what, r)
}

func hasSession(r *matchsim.Reply) bool {
	s, _ := r.Str("session")
	return s != ""
}

// hostileWords are words of which the refusal of each hostile form must
// hold one: what was wrong with it.
var hostileWords = map[matchsim.Hostile][]string{
	matchsim.HostileMany:      {"values", "fields"},
	matchsim.HostileNesting:   {"brackets", "deep", "levels"},
	matchsim.HostileBrackets:  {"brackets", "deep", "levels", "long"},
	matchsim.HostileUTF8Key:   {"utf-8"},
	matchsim.HostileUTF8Value: {"utf-8"},
}
