package guides

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/honmaster/masterserver/host/server"
)

// TestReplyOutcome classifies the area's recorded replies (its golden
// fixtures) and a list.
func TestReplyOutcome(t *testing.T) {
	for file, want := range map[string]string{"no_guides_found.golden": server.OutcomeOK, "invalid_cookie.golden": server.OutcomeRefused, "wrong_account.golden": server.OutcomeRefused} {
		body, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		if got := replies.Outcome(body); got != want {
			t.Errorf("%s: %q, want %q", file, got, want)
		}
	}
	if got := replies.Outcome([]byte(`a:2:{s:6:"errors";s:0:"";s:7:"success";i:1;}`)); got != "" {
		t.Errorf("a list: %q, want no opinion (ok)", got)
	}
}
