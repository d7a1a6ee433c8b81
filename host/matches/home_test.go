package matches_test

import (
	"net/url"
	"testing"

	"github.com/honmaster/masterserver/host/matches"
	"github.com/honmaster/masterserver/wire"
)

// TestRequestsNameTheirGameHost: in cluster mode a request of the area is
// served on the home node of the game-host account it names
// (server.Route.Account): the login's NAME for replay_auth, new_session
// and resubmit_stats; the live server session's host for every other
// function, c_conn included although it carries a player's cookie. A
// request naming none (get_upgrades' player cookie, an ended or forged
// session, a player's cookie as the session, an unknown login) is left to
// the host's rule.
func TestRequestsNameTheirGameHost(t *testing.T) {
	f := newFixture(t, 1)
	host, err := f.Runtime.App.DB.LoginID("hoster")
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := f.newServer("hoster", "pw-hoster", "1")
	ended, _ := f.newServer("hoster", "pw-hoster", "2")
	if code, _, body := f.call(matches.PathServerRequester, "shutdown", url.Values{"session": {ended}}); code != 200 {
		t.Fatalf("shutdown: %d %q", code, body)
	}
	forged := sess[:len(sess)-1] + "0" // the secret's last digit changed
	if forged == sess {
		forged = sess[:len(sess)-1] + "1"
	}
	cookie := f.players[0].cookie
	for _, tc := range []struct {
		path, fn string
		form     url.Values
		named    bool
	}{
		{matches.PathServerRequester, "replay_auth", url.Values{"login": {"hoster:"}}, true},
		{matches.PathServerRequester, "new_session", url.Values{"login": {"hoster:7"}}, true},
		{matches.PathStatsRequester, "resubmit_stats", url.Values{"login": {"hoster:"}}, true},
		{matches.PathServerRequester, "set_online", url.Values{"session": {sess}}, true},
		{matches.PathServerRequester, "start_game", url.Values{"session": {sess}}, true},
		{matches.PathServerRequester, "c_conn", url.Values{"session": {sess}, "cookie": {cookie}}, true},
		{matches.PathStatsRequester, "submit_stats", url.Values{"session": {sess}}, true},
		{matches.PathServerRequester, "new_session", url.Values{"login": {"nobody:7"}}, false},
		{matches.PathServerRequester, "replay_auth", url.Values{"login": {"hoster"}}, false},
		{matches.PathServerRequester, "set_online", url.Values{"session": {ended}}, false},
		{matches.PathServerRequester, "set_online", url.Values{"session": {forged}}, false},
		{matches.PathServerRequester, "c_conn", url.Values{"session": {cookie}, "cookie": {cookie}}, false},
		{matches.PathServerRequester, "get_upgrades", url.Values{"cookie": {cookie}}, false},
		{matches.PathServerRequester, "set_online", url.Values{}, false},
	} {
		r := &wire.Request{Method: "POST", Path: tc.path, Query: wire.Values{"f": {tc.fn}}, Form: wire.Values(tc.form)}
		id, ok := matches.HostOf(r)
		if ok != tc.named || ok && id != host {
			t.Errorf("%s %v: named %d (%v); want the game host %d: %v", tc.fn, tc.form, id, ok, host, tc.named)
		}
	}
}
