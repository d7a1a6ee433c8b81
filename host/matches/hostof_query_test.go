package matches_test

import (
	"context"
	"net/url"
	"strconv"
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

// TestHostOfReadsTheLoginTheHandlerAuthenticates: hostOf (which picks the
// node serving a request in cluster mode, and thereby where the host's
// failed-password limit and rates are counted) read the first "login"
// value (wire.Request.Value), while the handlers authenticate the last one
// (Decode, DecodeStatsForm: the last one wins, as in PHP). A new_session,
// replay_auth or resubmit_stats with login=nobody:&login=hoster: was
// authenticated as hoster but named no host (served wherever it arrived),
// so a password guesser spread its guesses over every node's local limit.
// (From a review of the matches area; failed before.)
func TestHostOfReadsTheLoginTheHandlerAuthenticates(t *testing.T) {
	f := newFixture(t, 0)
	host, err := f.Runtime.App.DB.LoginID("hoster")
	if err != nil {
		t.Fatal(err)
	}
	// The handler authenticates the last login: hoster.
	form := url.Values{"login": {"nobody:1", "hoster:1"}, "pass": {md5hex("pw-hoster")}, "port": {"11235"}}
	code, a, body := f.call(matches.PathServerRequester, "new_session", form)
	if code != 200 || str(a, "session") == "" {
		t.Fatalf("new_session with two logins: %d %s", code, body)
	}
	for _, tc := range []struct{ path, fn, first, last string }{
		{matches.PathServerRequester, "new_session", "nobody:1", "hoster:1"},
		{matches.PathServerRequester, "replay_auth", "nobody:", "hoster:"},
		{matches.PathStatsRequester, "resubmit_stats", "nobody:", "hoster:"},
	} {
		r := &wire.Request{Method: "POST", Path: tc.path, Query: wire.Values{"f": {tc.fn}},
			Form: wire.Values{"login": {tc.first, tc.last}}}
		if id, ok := matches.HostOf(r); !ok || id != host {
			t.Errorf("%s with login=%s&login=%s (the handler authenticates %s): HostOf = %d, %v; want the game host %d",
				tc.fn, tc.first, tc.last, tc.last, id, ok, host)
		}
	}
}

// TestResubmitReadsCredentialsAsHostOfDoes: resubmit_stats read login,
// pass and resubmission_key from the form only (the stats form decoder's
// copies replaced what Decode read, form else query), while hostOf and
// every other function read them from the form, else the query
// (TestHostOfReadsFieldsAsTheHandlersDo): a resubmission whose
// credentials came in the query string was routed to its host and then
// refused 401 as a wrong login. (From a review; failed before.)
func TestResubmitReadsCredentialsAsHostOfDoes(t *testing.T) {
	f := newFixture(t, 2)
	_, _, mid := f.startedMatch()
	n, _ := strconv.ParseUint(mid, 10, 32)
	form := stats("", mid, f.players)
	form.Del("session")
	q := url.Values{"f": {"resubmit_stats"}, "login": {"hoster:"}, "pass": {md5hex("pw-hoster")},
		"resubmission_key": {matches.ResubmissionKey(uint32(n))}}
	r, err := f.Client.PostForm(context.Background(), matches.PathStatsRequester+"?"+q.Encode(), form)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != 200 {
		t.Errorf("resubmit_stats with its credentials in the query (HostOf names the host): %d %s", r.Status, r.Body)
	}
}
