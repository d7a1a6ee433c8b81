package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/honmaster/masterserver/host/accounts"
)

// An account whose name is another player's nickname is refused like a
// login taken (409, the rule's sentence), not as a malformed request
// (400). (From a second review; failed before.)
func TestANameTakenIsAConflict(t *testing.T) {
	r := httptest.NewRequest("POST", "/operator/v1/account", nil)
	status, msg := apiError(r, "Maliken", fmt.Errorf("%w: %q", accounts.ErrNicknameTaken, "Maliken"))
	if status != http.StatusConflict || msg != accounts.RuleMessage(accounts.ErrNicknameTaken) {
		t.Errorf("apiError: %d %q, want 409 and the rule's sentence", status, msg)
	}
}
