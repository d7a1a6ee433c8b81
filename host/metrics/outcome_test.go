package metrics

import (
	"testing"

	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/wire"
)

func TestOutcome(t *testing.T) {
	wrongPw, err := wire.Marshal(login.Failure(failure.New(login.ReasonWrongPassword, nil)))
	if err != nil {
		t.Fatal(err)
	}
	refuseAll := func([]byte) string { return OutcomeRefused }
	noOpinion := func([]byte) string { return "" }
	for _, tt := range []struct {
		name    string
		area    string
		status  int
		body    string
		outcome func([]byte) string // the route's
		want    string
	}{
		{"login ok", "login", 200, `a:3:{s:10:"account_id";s:1:"1";s:6:"cookie";s:2:"ab";s:5:"proof";s:2:"cd";}`, nil, OutcomeOK},
		{"wrong password", "login", 200, string(wrongPw), nil, "wrong_password"},
		{"unknown auth text", "login", 200, `a:2:{s:4:"auth";s:3:"new";i:0;b:0;}`, nil, OutcomeRefused},
		{"the route's reading wins", "plinko", 200, `a:1:{s:11:"status_code";i:1;}`, refuseAll, OutcomeRefused},
		{"a route without an opinion: ok", "plinko", 200, `a:1:{s:11:"status_code";i:3;}`, noOpinion, OutcomeOK},
		{"a route without an opinion: generic error", "daily", 200, `a:1:{s:5:"error";s:3:"bad";}`, noOpinion, OutcomeError},
		{"generic error", "patch", 200, `a:1:{s:5:"error";s:3:"bad";}`, nil, OutcomeError},
		{"not found", "unknown", 404, `a:1:{s:5:"error";s:3:"bad";}`, nil, OutcomeNotFound},
		{"too large", "portal", 413, `{}`, nil, OutcomeClientError},
		{"5xx before the route's reading", "login", 503, ``, refuseAll, OutcomeServerError},
	} {
		r := &server.RequestInfo{Area: tt.area, Status: tt.status, Body: []byte(tt.body), Outcome: tt.outcome}
		if got := Outcome(r); got != tt.want {
			t.Errorf("%s: Outcome = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestEveryLoginReasonNamed: each login failure reason has its own
// outcome name, so logins are counted by why they failed — except reasons
// whose replies are identical on purpose (unknown account, wrong password).
func TestEveryLoginReasonNamed(t *testing.T) {
	seen := map[string]login.Reason{}
	for r := login.ReasonInternal; login.Reason(r).Message() != ""; r++ {
		name, ok := loginOutcomes[r]
		if !ok {
			t.Errorf("login reason %d (%q) has no outcome name", r, r.Message())
		}
		if prev, dup := seen[name]; dup && prev.Message() != r.Message() {
			t.Errorf("reasons %d and %d share the outcome %q", prev, r, name)
		}
		seen[name] = r
		body, _ := loginFailureBody(r)
		if got := Outcome(&server.RequestInfo{Area: "login", Status: 200, Body: body}); got != name {
			t.Errorf("reason %d: Outcome = %q, want %q", r, got, name)
		}
	}
}
