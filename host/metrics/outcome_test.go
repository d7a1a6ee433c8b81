package metrics

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/wire"
)

func TestOutcome(t *testing.T) {
	wrongPw, err := wire.Marshal(login.Failure(failure.New(login.ReasonWrongPassword, nil)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		area   string
		status int
		body   string
		want   string
	}{
		{"login ok", "login", 200, `a:3:{s:10:"account_id";s:1:"1";s:6:"cookie";s:2:"ab";s:5:"proof";s:2:"cd";}`, OutcomeOK},
		{"wrong password", "login", 200, string(wrongPw), "wrong_password"},
		{"unknown auth text", "login", 200, `a:2:{s:4:"auth";s:3:"new";i:0;b:0;}`, OutcomeRefused},
		{"drop ok (text status)", "plinko", 200, `a:2:{s:12:"user_tickets";s:2:"10";s:11:"status_code";s:1:"1";}`, OutcomeOK},
		{"board ok (integer status)", "plinko", 200, `a:1:{s:11:"status_code";i:1;}`, OutcomeOK},
		{"exchange ok", "plinko", 200, `a:1:{s:11:"status_code";i:51;}`, OutcomeOK},
		{"purchase ok", "plinko", 200, `a:1:{s:11:"status_code";s:2:"51";}`, OutcomeOK},
		{"insufficient funds", "plinko", 200, `a:1:{s:11:"status_code";s:1:"3";}`, OutcomeRefused},
		{"plugin down", "plinko", 200, `a:1:{s:11:"status_code";s:1:"5";}`, OutcomeError},
		{"internal", "plinko", 200, `a:1:{s:11:"status_code";i:8;}`, OutcomeError},
		{"cloud refused", "cloud", 200, `a:2:{s:7:"success";b:0;s:8:"messages";s:3:"bad";}`, OutcomeRefused},
		{"cloud status word", "cloud", 200, `invalid_request`, OutcomeRefused},
		{"cloud ok", "cloud", 200, `a:2:{s:7:"success";b:1;s:8:"messages";s:0:"";}`, OutcomeOK},
		{"cloud retrieve (zip)", "cloud", 200, "PK\x03\x04...", OutcomeOK},
		{"guide list", "guides", 200, `a:2:{s:6:"errors";s:0:"";s:7:"success";i:1;}`, OutcomeOK},
		{"no guides found", "guides", 200, `a:2:{s:6:"errors";s:15:"no_guides_found";s:7:"success";i:0;}`, OutcomeOK},
		{"guides bad cookie", "guides", 200, `a:2:{s:6:"errors";s:14:"invalid_cookie";s:7:"success";i:0;}`, OutcomeRefused},
		{"generic error", "patch", 200, `a:1:{s:5:"error";s:3:"bad";}`, OutcomeError},
		{"not found", "unknown", 404, `a:1:{s:5:"error";s:3:"bad";}`, OutcomeNotFound},
		{"too large", "portal", 413, `{}`, OutcomeClientError},
		{"5xx", "login", 503, ``, OutcomeServerError},
	} {
		if got := Outcome(tt.area, tt.status, []byte(tt.body)); got != tt.want {
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
		if got := Outcome("login", 200, body); got != name {
			t.Errorf("reason %d: Outcome = %q, want %q", r, got, name)
		}
	}
}

// TestGuidesGoldenReplies classifies the guides area's recorded failure
// replies (its golden fixtures).
func TestGuidesGoldenReplies(t *testing.T) {
	for file, want := range map[string]string{"no_guides_found.golden": OutcomeOK, "invalid_cookie.golden": OutcomeRefused, "wrong_account.golden": OutcomeRefused} {
		body, err := os.ReadFile(filepath.Join("..", "guides", "testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		if got := Outcome("guides", 200, body); got != want {
			t.Errorf("%s: Outcome = %q, want %q", file, got, want)
		}
	}
}
