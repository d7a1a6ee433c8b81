package cloud

import (
	"testing"

	"github.com/honmaster/masterserver/host/server"
)

func TestReplyOutcome(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"refused", `a:2:{s:7:"success";b:0;s:8:"messages";s:31:"Missing or invalid bucket name.";}`, server.OutcomeRefused},
		{"failed", `a:2:{s:7:"success";b:0;s:8:"messages";s:33:"Internal error, please try again.";}`, server.OutcomeError},
		{"status word", `invalid_request`, server.OutcomeRefused},
		{"ok", `a:2:{s:7:"success";b:1;s:8:"messages";s:0:"";}`, ""},
		{"retrieve (zip)", "PK\x03\x04...", ""},
	} {
		if got := replyOutcome([]byte(tt.body)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
