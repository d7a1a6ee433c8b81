package matches_test

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/honmaster/masterserver/host/matches"
)

// (From a review.) get_hero_stats answers the account's LOGIN as "nickname"
// (herostats.go heroStatsFor: nick = acct.Login), although the player is
// found by nickname and logins and nicknames differ (--nickname, imports,
// renames); every other reply of the area (c_conn, chatclient_connect,
// get_match_stats) answers the nickname.
func TestHeroStatsAnswerTheNickname(t *testing.T) {
	f := newFixture(t, 0)
	ps := f.loginPlayers(t, []string{"alice"}, []string{"Zed"})
	sr := matches.PathServerRequester
	sess, _ := f.newServer("hoster", "pw-hoster", "1")
	mid := str(f.ok(sr, "start_game", url.Values{"session": {sess}, "map": {"caldavar"}}), "match_id")
	f.ok(sr, "c_conn", url.Values{"session": {sess}, "cookie": {ps[0].cookie}})
	k := "player_stats[" + strconv.Itoa(int(ps[0].id)) + "][Hero_Pyromancer]"
	f.ok(matches.PathStatsRequester, "submit_stats", url.Values{"session": {sess}, "match_stats[match_id]": {mid},
		k + "[nickname]": {"Zed"}, k + "[team]": {"1"}, k + "[wins]": {"1"}})
	a := f.ok("/client_requester.php", "get_hero_stats", url.Values{"cookie": {ps[0].cookie}, "nickname": {"Zed"}, "hero": {"Hero_Pyromancer"}})
	if got := str(a, "ph_games_played"); got != "1" {
		t.Fatalf("get_hero_stats: %v", a)
	}
	if got := str(a, "nickname"); got != "Zed" {
		t.Errorf("get_hero_stats nickname = %q, want the player's nickname %q (its login is alice)", got, "Zed")
	}
}

// (From a review.) resolve strips a leading "[...]" from every submitted nickname
// as a clan tag, but a nickname may itself begin with brackets
// (accounts.CheckNickname allows them), and a player without a clan is
// submitted under its nickname as it is. The entry of "[x]bob" is then
// read as "bob": credited to another participant named bob, and bob's own
// entry refuses the whole submission (400), so nobody's statistics of the
// match are ever recorded (a 400 makes the manager give the file up).
func TestANicknameThatBeginsWithBrackets(t *testing.T) {
	f := newFixture(t, 0)
	ps := f.loginPlayers(t, []string{"xbob", "bob"}, []string{"[x]bob", "bob"})
	sr := matches.PathServerRequester
	sess, _ := f.newServer("hoster", "pw-hoster", "1")
	mid := str(f.ok(sr, "start_game", url.Values{"session": {sess}, "map": {"caldavar"}}), "match_id")
	for _, p := range ps {
		f.ok(sr, "c_conn", url.Values{"session": {sess}, "cookie": {p.cookie}})
	}
	v := url.Values{"session": {sess}, "match_stats[match_id]": {mid}}
	for i, p := range ps { // keyed by account id (korDen's reading); [x]bob wins on team 1
		k := "player_stats[" + strconv.Itoa(int(p.id)) + "][Hero_Pyromancer]"
		v.Set(k+"[nickname]", []string{"[x]bob", "bob"}[i])
		v.Set(k+"[team]", strconv.Itoa(i+1))
		v.Set(k+"[wins]", strconv.Itoa(1-i))
		v.Set(k+"[losses]", strconv.Itoa(i))
	}
	if code, _, body := f.call(matches.PathStatsRequester, "submit_stats", v); code != 200 {
		t.Fatalf("submit_stats of a match with players [x]bob and bob, each entry keyed by its account id: %d %s", code, body)
	}
	if got := f.totals(ps[0].id); got.Matches != 1 || got.Wins != 1 {
		t.Errorf("[x]bob: %+v", got)
	}
	if got := f.totals(ps[1].id); got.Matches != 1 || got.Losses != 1 {
		t.Errorf("bob: %+v", got)
	}
}

// (From a review.) match_history_overview (playerByNickname) strips a leading
// "[...]" too: asked for the player "[x]bob", it answers bob's matches.
func TestHistoryOfANicknameThatBeginsWithBrackets(t *testing.T) {
	f := newFixture(t, 0)
	ps := f.loginPlayers(t, []string{"xbob", "bob"}, []string{"[x]bob", "bob"})
	sr := matches.PathServerRequester
	sess, _ := f.newServer("hoster", "pw-hoster", "1")
	mid := str(f.ok(sr, "start_game", url.Values{"session": {sess}, "map": {"caldavar"}}), "match_id")
	f.ok(sr, "c_conn", url.Values{"session": {sess}, "cookie": {ps[1].cookie}}) // bob alone plays
	k := "player_stats[" + strconv.Itoa(int(ps[1].id)) + "][Hero_Pyromancer]"
	f.ok(matches.PathStatsRequester, "submit_stats", url.Values{"session": {sess}, "match_stats[match_id]": {mid},
		k + "[nickname]": {"bob"}, k + "[team]": {"1"}, k + "[wins]": {"1"}})
	_, a, _ := f.call("/client_requester.php", "match_history_overview", url.Values{"nickname": {"[x]bob"}, "num": {"5"}})
	if got := str(a, "m0"); got != "" {
		t.Errorf("history of [x]bob (who played no match): m0 = %q (bob's match %s)", got, mid)
	}
}

// TestAClanTaggedNicknameThatIsAnotherPlayers: the mirror of
// TestANicknameThatBeginsWithBrackets (from the second review; failed
// before). The key decides when both readings name a participant.
// bob, a member of clan "x", is sent by the game server as "[x]bob" (the
// clan tag the resolver strips); another participant's own nickname is
// "[x]bob" (no clan). Each entry is keyed by its account id. The as-sent
// reading now names exactly one participant ("[x]bob"), so the key is not
// consulted: bob's entry is taken for the other player and the submission
// is refused (400), nobody's statistics recorded.
func TestAClanTaggedNicknameThatIsAnotherPlayers(t *testing.T) {
	f := newFixture(t, 0)
	ps := f.loginPlayers(t, []string{"xbob", "bob"}, []string{"[x]bob", "bob"})
	sr := matches.PathServerRequester
	sess, _ := f.newServer("hoster", "pw-hoster", "1")
	mid := str(f.ok(sr, "start_game", url.Values{"session": {sess}, "map": {"caldavar"}}), "match_id")
	for _, p := range ps {
		f.ok(sr, "c_conn", url.Values{"session": {sess}, "cookie": {p.cookie}})
	}
	v := url.Values{"session": {sess}, "match_stats[match_id]": {mid}}
	for i, p := range ps {
		k := "player_stats[" + strconv.Itoa(int(p.id)) + "][Hero_Pyromancer]"
		v.Set(k+"[nickname]", "[x]bob") // [x]bob as it is; bob with his clan tag
		v.Set(k+"[team]", strconv.Itoa(i+1))
		v.Set(k+"[wins]", strconv.Itoa(1-i))
		v.Set(k+"[losses]", strconv.Itoa(i))
	}
	if code, _, body := f.call(matches.PathStatsRequester, "submit_stats", v); code != 200 {
		t.Fatalf("submit_stats, entries keyed by account id, bob sent with his clan tag: %d %s", code, body)
	}
	if got := f.totals(ps[1].id); got.Matches != 1 || got.Losses != 1 {
		t.Errorf("bob: %+v", got)
	}
}
