package plinko

import (
	"testing"

	"github.com/honmaster/masterserver/host/server"
)

func TestReplyOutcome(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"drop ok (text status)", `a:2:{s:12:"user_tickets";s:2:"10";s:11:"status_code";s:1:"1";}`, server.OutcomeOK},
		{"board ok (integer status)", `a:1:{s:11:"status_code";i:1;}`, server.OutcomeOK},
		{"exchange ok", `a:1:{s:11:"status_code";i:51;}`, server.OutcomeOK},
		{"purchase ok", `a:1:{s:11:"status_code";s:2:"51";}`, server.OutcomeOK},
		{"insufficient funds", `a:1:{s:11:"status_code";s:1:"3";}`, server.OutcomeRefused},
		{"too many drops and purchases: the player's refusal", `a:1:{s:11:"status_code";s:2:"13";}`, server.OutcomeRefused},
		{"plugin down", `a:1:{s:11:"status_code";s:1:"5";}`, server.OutcomeError},
		{"internal", `a:1:{s:11:"status_code";i:8;}`, server.OutcomeError},
		{"no status code: no opinion", `a:1:{s:5:"error";s:3:"bad";}`, ""},
		{"a malformed status code: no opinion", `a:1:{s:11:"status_code";s:1:"x`, ""},
	} {
		if got := replies.Outcome([]byte(tt.body)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
