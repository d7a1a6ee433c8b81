package matches_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/matches"
)

// These tests come from a review of the area's logic (each failed before
// its fix).

// beat sends game server session's heartbeat v (set_online).
func (f *fixture) beat(session string, v url.Values) {
	f.t.Helper()
	v.Set("session", session)
	if code, _, body := f.call(matches.PathServerRequester, "set_online", v); code != 200 {
		f.t.Fatalf("set_online %v: %d %s", v, code, body)
	}
}

// loginPlayers creates accounts (login, nickname) and logs each in.
func (f *fixture) loginPlayers(t *testing.T, logins, nicknames []string) []player {
	t.Helper()
	var ps []player
	for i, l := range logins {
		args := []string{"account", "create", "--login", l, "--password", "pw-" + l}
		if nicknames != nil {
			args = append(args, "--nickname", nicknames[i])
		}
		f.Host(t, args...)
		sess, err := f.Client.Login(context.Background(), l, "pw-"+l)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := strconv.ParseUint(sess.AccountID, 10, 32)
		ps = append(ps, player{login: l, cookie: sess.Cookie, id: uint32(id)})
	}
	return ps
}

// A shutdown ends the server's lobby and its open match: its waiting
// players used to stay, filling max_participants (every later player of
// the server, registered again, refused with 409 until a start_game) and
// becoming participants of its next match.
func TestAShutDownServerForgetsItsLobby(t *testing.T) {
	s := clitest.Start(t, func(c *config.Config) {
		c.Areas["matches"].(*matches.Settings).MaxParticipants = 2
	})
	s.Host(t, "account", "create", "--login", "hoster", "--password", "pw-hoster", "--game-host")
	f := &fixture{Server: s, t: t}
	ps := f.loginPlayers(t, []string{"a0", "a1", "a2"}, nil)
	sr := matches.PathServerRequester
	sess, _ := f.newServer("hoster", "pw-hoster", "1")
	for _, p := range ps[:2] { // a lobby that never starts
		f.ok(sr, "c_conn", url.Values{"session": {sess}, "cookie": {p.cookie}})
	}
	if code, _, body := f.call(sr, "shutdown", url.Values{"session": {sess}}); code != 200 {
		t.Fatalf("shutdown %d %s", code, body)
	}
	sess, _ = f.newServer("hoster", "pw-hoster", "1") // the server restarts
	if code, _, body := f.call(sr, "c_conn", url.Values{"session": {sess}, "cookie": {ps[2].cookie}}); code != 200 {
		t.Fatalf("the first player of the restarted server's lobby: %d %s", code, body)
	}
	mid := str(f.ok(sr, "start_game", url.Values{"session": {sess}}), "match_id")
	n, _ := strconv.ParseUint(mid, 10, 32)
	m, _, err := matches.LoadMatch(f.Runtime.App.DB, uint32(n))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Participants) != 1 || m.Participants[0].AccountId != ps[2].id {
		t.Errorf("the restarted server's match has %d participants (%v), want only a2 (%d)", len(m.Participants), m.Participants, ps[2].id)
	}
}

// max_servers_per_host counted every instance ever registered: a host
// whose only server shut down could not register another instance. Shut
// down ones leave room now, an instance coming back takes its room again,
// and the records in all are bounded (twice the setting).
func TestShutDownServersLeaveRoom(t *testing.T) {
	s := clitest.Start(t, func(c *config.Config) {
		c.Areas["matches"].(*matches.Settings).MaxServers = 1
	})
	s.Host(t, "account", "create", "--login", "hoster", "--password", "pw-hoster", "--game-host")
	f := &fixture{Server: s, t: t}
	sess, _ := f.newServer("hoster", "pw-hoster", "old")
	if code, _, body := f.call(matches.PathServerRequester, "new_session", url.Values{"login": {"hoster:second"}, "pass": {md5hex("pw-hoster")}}); code == 200 {
		t.Fatalf("a second instance past max_servers_per_host = 1 while the first runs: %d %s", code, body)
	}
	if code, _, body := f.call(matches.PathServerRequester, "shutdown", url.Values{"session": {sess}}); code != 200 {
		t.Fatalf("shutdown %d %s", code, body)
	}
	register := func(instance string) (int, string) {
		code, _, body := f.call(matches.PathServerRequester, "new_session", url.Values{"login": {"hoster:" + instance}, "pass": {md5hex("pw-hoster")}})
		return code, body
	}
	if code, body := register("new"); code != 200 {
		t.Fatalf("after its only server shut down, a host registering another instance: %d %s", code, body)
	}
	if code, body := register("old"); code == 200 {
		t.Errorf("the shut-down instance coming back while \"new\" runs, past max_servers_per_host = 1: %d %s", code, body)
	}
	sess, _ = f.newServer("hoster", "pw-hoster", "new") // a new session of the running one: always
	if code, _, body := f.call(matches.PathServerRequester, "shutdown", url.Values{"session": {sess}}); code != 200 {
		t.Fatalf("shutdown %d %s", code, body)
	}
	if code, body := register("third"); code != 403 {
		t.Errorf("a third instance with two records (both shut down) and max_servers_per_host = 1: %d %s; want 403", code, body)
	}
	if code, body := register("old"); code != 200 {
		t.Errorf("a shut-down instance coming back, nothing running: %d %s", code, body)
	}
}

// Match history looked a player up by login, not nickname: a player whose
// nickname differs from its login had no history, and a nickname that is
// someone else's login showed that account's.
func TestHistoryFindsAPlayerByNickname(t *testing.T) {
	f := newFixture(t, 0)
	// zed's nickname is 33 characters of 66 bytes: the lookup counted
	// bytes against the nickname rules' 64 characters and found no one.
	other := strings.Repeat("Ж", 33)
	ps := f.loginPlayers(t, []string{"alice", "zed"}, []string{"Zed", other})
	sr := matches.PathServerRequester
	sess, _ := f.newServer("hoster", "pw-hoster", "1")
	mid := str(f.ok(sr, "start_game", url.Values{"session": {sess}, "map": {"caldavar"}}), "match_id")
	for _, p := range ps {
		f.ok(sr, "c_conn", url.Values{"session": {sess}, "cookie": {p.cookie}})
	}
	v := url.Values{"session": {sess}, "match_stats[match_id]": {mid}}
	for i, p := range ps { // alice (Zed) wins on team 1, zed (Other) loses on team 2
		k := "player_stats[" + strconv.Itoa(int(p.id)) + "][Hero_Pyromancer]"
		v.Set(k+"[nickname]", []string{"Zed", other}[i])
		v.Set(k+"[team]", strconv.Itoa(i+1))
		v.Set(k+"[wins]", strconv.Itoa(1-i))
		v.Set(k+"[losses]", strconv.Itoa(i))
	}
	f.ok(matches.PathStatsRequester, "submit_stats", v)
	line := func(nick string) string {
		_, a, _ := f.call("/client_requester.php", "match_history_overview", url.Values{"nickname": {nick}, "num": {"5"}})
		return str(a, "m0")
	}
	if got := line("Zed"); !strings.HasPrefix(got, mid+",1,1,") {
		t.Errorf("history of Zed (alice: a win on team 1): %q", got)
	}
	if got := line(other); !strings.HasPrefix(got, mid+",0,2,") {
		t.Errorf("history of %s (login zed: a loss on team 2): %q", other, got)
	}
	if got := line("alice"); got != "" {
		t.Errorf("history of alice, a login and no one's nickname: %q, want none", got)
	}
}

// Nicknames are not unique. Two participants sharing one (in any case)
// made the match unrecordable when both were submitted, and credited one's
// result to the other when only one was: an entry whose nickname names
// several participants is decided by its key.
func TestParticipantsSharingANickname(t *testing.T) {
	f := newFixture(t, 0)
	ps := f.loginPlayers(t, []string{"bob1", "bob2"}, []string{"Bob", "bob"})
	sr := matches.PathServerRequester
	sess, _ := f.newServer("hoster", "pw-hoster", "1")
	start := func() string {
		mid := str(f.ok(sr, "start_game", url.Values{"session": {sess}, "map": {"caldavar"}}), "match_id")
		for _, p := range ps {
			f.ok(sr, "c_conn", url.Values{"session": {sess}, "cookie": {p.cookie}})
		}
		return mid
	}
	entry := func(v url.Values, key uint32, nick, team, win string) {
		k := "player_stats[" + strconv.FormatUint(uint64(key), 10) + "][Hero_Pyromancer]"
		v.Set(k+"[nickname]", nick)
		v.Set(k+"[team]", team)
		v.Set(k+"[wins]", win)
		v.Set(k+"[herokills]", "7")
	}
	// Only bob1, keyed by its account id: bob1 is credited, not bob2.
	m1 := start()
	v := url.Values{"session": {sess}, "match_stats[match_id]": {m1}}
	entry(v, ps[0].id, "Bob", "1", "1")
	f.ok(matches.PathStatsRequester, "submit_stats", v)
	if g0, g1 := f.totals(ps[0].id), f.totals(ps[1].id); g0.Matches != 1 || g0.Wins != 1 || g1.Matches != 0 {
		t.Errorf("an entry keyed by bob1's id: bob1 %+v, bob2 %+v", g0, g1)
	}
	// Both, each keyed by its own id: recorded.
	m2 := start()
	v = url.Values{"session": {sess}, "match_stats[match_id]": {m2}}
	entry(v, ps[0].id, "Bob", "1", "1")
	entry(v, ps[1].id, "bob", "2", "0")
	if code, _, body := f.call(matches.PathStatsRequester, "submit_stats", v); code != 200 {
		t.Fatalf("both players, each keyed by its own id: %d %s", code, body)
	}
	if g0, g1 := f.totals(ps[0].id), f.totals(ps[1].id); g0.Matches != 2 || g1.Matches != 1 {
		t.Errorf("after the second match: bob1 %+v, bob2 %+v", g0, g1)
	}
	// Keyed by a slot index that names neither: refused, not guessed.
	m3 := start()
	v = url.Values{"session": {sess}, "match_stats[match_id]": {m3}}
	entry(v, 999999, "BOB", "1", "1")
	if code, _, body := f.call(matches.PathStatsRequester, "submit_stats", v); code != 400 || !strings.Contains(body, "several participants") {
		t.Errorf("an entry whose nickname two participants share and whose key names neither: %d %s", code, body)
	}
}

// A match whose submission failed stayed the server's open match until
// its next start_game: players who connected to the next lobby before
// that start_game joined the unrecorded match, and the next match did not
// know them. A heartbeat that reports the server idle (or asleep) after
// one reported the match under way (lobby or in game) ends it.
func TestAnIdleHeartbeatEndsTheMatch(t *testing.T) {
	f := newFixture(t, 0)
	ps := f.loginPlayers(t, []string{"b0", "b1", "b2"}, nil)
	sr := matches.PathServerRequester
	sess, _ := f.newServer("hoster", "pw-hoster", "1")
	beat := func(state string) { f.beat(sess, url.Values{"c_state": {state}, "num_conn": {"1"}}) }
	participants := func(mid string) []uint32 {
		t.Helper()
		n, _ := strconv.ParseUint(mid, 10, 32)
		m, _, err := matches.LoadMatch(f.Runtime.App.DB, uint32(n))
		if err != nil {
			t.Fatal(err)
		}
		var ids []uint32
		for _, p := range m.Participants {
			ids = append(ids, p.AccountId)
		}
		return ids
	}

	beat("1")
	first := str(f.ok(sr, "start_game", url.Values{"session": {sess}}), "match_id")
	beat("1") // a heartbeat sent before start_game, arriving after it: the match goes on
	f.ok(sr, "c_conn", url.Values{"session": {sess}, "cookie": {ps[0].cookie}})
	beat("2")
	beat("3")
	// The match ends; its submission fails (kept by the manager to
	// resubmit), and the server is idle again.
	beat("1")
	f.ok(sr, "c_conn", url.Values{"session": {sess}, "cookie": {ps[1].cookie}}) // the next lobby, before its start_game
	second := str(f.ok(sr, "start_game", url.Values{"session": {sess}}), "match_id")
	f.ok(sr, "c_conn", url.Values{"session": {sess}, "cookie": {ps[2].cookie}})

	if got := participants(first); len(got) != 1 || got[0] != ps[0].id {
		t.Errorf("the first match's participants: %v, want only b0 (%d)", got, ps[0].id)
	}
	if got := participants(second); len(got) != 2 || got[0] != ps[1].id || got[1] != ps[2].id {
		t.Errorf("the second match's participants: %v, want b1, b2 (%d, %d)", got, ps[1].id, ps[2].id)
	}
	// Both matches are recorded, the ended one too, each for its own players.
	st := matches.PathStatsRequester
	f.ok(st, "submit_stats", stats(sess, second, ps[1:]))
	f.ok(st, "submit_stats", stats(sess, first, ps[:1]))
	for i, p := range ps {
		if got := f.totals(p.id).Matches; got != 1 {
			t.Errorf("b%d's matches: %d, want 1", i, got)
		}
	}
}

// A game host whose role was taken away has no server online: its
// servers' sessions are refused and the players' lists leave them out,
// but the operator's list (servers list, the console's page) still
// called them online until their heartbeats timed out.
func TestARevokedHostHasNoServerOnline(t *testing.T) {
	f := newFixture(t, 0)
	s := f.Server
	sess, _ := f.newServer("hoster", "pw-hoster", "1")
	f.beat(sess, url.Values{"c_state": {"1"}})
	online := func() int {
		t.Helper()
		vs, err := matches.Servers(f.Runtime.App.DB, nil, time.Now(), time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, v := range vs {
			if v.Online && !v.Rec.Manager {
				n++
			}
		}
		return n
	}
	if n := online(); n != 1 {
		t.Fatalf("servers online before: %d, want 1", n)
	}
	s.Host(t, "account", "role", "--login", "hoster", "--no-game-host")
	if n := online(); n != 0 {
		t.Errorf("servers online after the role was taken away: %d, want 0", n)
	}
	if out := s.Host(t, "servers", "list"); !strings.Contains(out, "not a game host") {
		t.Errorf("servers list after the role was taken away:\n%s", out)
	}
}

// A heartbeat without a c_state (or with one that is not a number) read
// as asleep and ended the live match: a player who joined mid-match went
// to the next lobby. Only a well-formed state moves the match. (From a
// second review; failed before.)
func TestAHeartbeatWithoutAStateDoesNotEndTheMatch(t *testing.T) {
	f := newFixture(t, 0)
	ps := f.loginPlayers(t, []string{"d0", "d1", "d2"}, nil)
	sr := matches.PathServerRequester
	sess, _ := f.newServer("hoster", "pw-hoster", "1")
	beat := func(v url.Values) { f.beat(sess, v) }
	beat(url.Values{"c_state": {"1"}})
	mid := str(f.ok(sr, "start_game", url.Values{"session": {sess}}), "match_id")
	f.ok(sr, "c_conn", url.Values{"session": {sess}, "cookie": {ps[0].cookie}})
	beat(url.Values{"c_state": {"3"}, "num_conn": {"1"}})
	beat(url.Values{"num_conn": {"2"}})                   // no c_state
	beat(url.Values{"c_state": {"x"}, "num_conn": {"2"}}) // not a number
	f.ok(sr, "c_conn", url.Values{"session": {sess}, "cookie": {ps[1].cookie}})
	beat(url.Values{"c_state": {"0"}}) // asleep, well formed: the match is over
	f.ok(sr, "c_conn", url.Values{"session": {sess}, "cookie": {ps[2].cookie}})
	n, _ := strconv.ParseUint(mid, 10, 32)
	m, _, err := matches.LoadMatch(f.Runtime.App.DB, uint32(n))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Participants) != 2 {
		t.Errorf("the live match has %d participants (%v); want 2 (d1 joined mid-match, d2 after it ended)", len(m.Participants), m.Participants)
	}
}

// A heartbeat without a c_state (or with one that is not a state) stored
// the server as asleep: a server in a lobby left the join list until its
// next heartbeat. Its state stays. (From a third review; failed before.)
func TestAHeartbeatWithoutAStateKeepsTheServersState(t *testing.T) {
	f := newFixture(t, 0)
	sess, _ := f.newServer("hoster", "pw-hoster", "1")
	for _, v := range []url.Values{{"c_state": {"2"}}, {"num_conn": {"3"}}, {"c_state": {"lobby"}, "num_conn": {"4"}}} {
		f.beat(sess, v)
	}
	vs, err := matches.Servers(f.Runtime.App.DB, nil, time.Now(), time.Hour)
	if err != nil || len(vs) != 1 {
		t.Fatalf("servers: %v %v", vs, err)
	}
	if rec := vs[0].Rec; rec.State != 2 || rec.Players != 4 {
		t.Errorf("stored state %d, players %d; want the lobby (2) kept, 4 players", rec.State, rec.Players)
	}
}
