package matches_test

import (
	"testing"

	"github.com/honmaster/masterserver/host/matches"
	"github.com/honmaster/masterserver/wire"
)

// The area's handlers read login and session from the form, else from
// the query (wire.Request.Decode); hostOf, which picks the node that
// serves the request in a cluster, read the form only. A new_session or
// replay_auth whose login came in the query named no game host and was
// served where it arrived: its password checked against that node's own
// failed_proofs_per_login_address, which ShareLimits leaves whole because
// a login's proofs are all checked on its account's home. (From a review;
// failed before.)
func TestHostOfReadsFieldsAsTheHandlersDo(t *testing.T) {
	f := newFixture(t, 1)
	host, err := f.Runtime.App.DB.LoginID("hoster")
	if err != nil {
		t.Fatal(err)
	}
	// A server session is read from the form only, by hostOf as by the
	// session functions: one in the query names no host.
	sess, _ := f.newServer("hoster", "pw-hoster", "1")
	r := &wire.Request{Method: "POST", Path: matches.PathServerRequester, Query: wire.Values{"f": {"set_online"}, "session": {sess}}, Form: wire.Values{}}
	if id, ok := matches.HostOf(r); ok {
		t.Errorf("set_online with its session in the query: HostOf = %d, want none (its handler reads the form)", id)
	}
	for _, tc := range []struct {
		path, fn, key, value string
	}{
		{matches.PathServerRequester, "replay_auth", "login", "hoster:"},
		{matches.PathServerRequester, "new_session", "login", "hoster:7"},
		{matches.PathStatsRequester, "resubmit_stats", "login", "hoster:"},
	} {
		r := &wire.Request{Method: "POST", Path: tc.path, Query: wire.Values{"f": {tc.fn}, tc.key: {tc.value}}, Form: wire.Values{}}
		if id, ok := matches.HostOf(r); !ok || id != host {
			t.Errorf("%s with %s in the query: HostOf = %d, %v; want the game host %d", tc.fn, tc.key, id, ok, host)
		}
		r.Form[tc.key] = []string{"nobody:"} // the form's wins, as in Decode
		if id, ok := matches.HostOf(r); ok {
			t.Errorf("%s with an unknown %s in the form: HostOf = %d, want none", tc.fn, tc.key, id)
		}
	}
}
