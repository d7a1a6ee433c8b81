package loadtest

import (
	"fmt"
	"testing"

	"github.com/honmaster/masterserver/host/client"
)

// A wrong server proof got a reply: it is its own kind, not a transport
// failure (which would leave the account out of the consistency check).
func TestKindOfServerProof(t *testing.T) {
	err := fmt.Errorf("login lt1: %w", client.ErrServerProof)
	if k := kindOf(err); k != "server_proof" || noReply(err) {
		t.Errorf("kindOf = %q, noReply = %t; want server_proof, false", k, noReply(err))
	}
}

// testCookie is a test account's session cookie.
const testCookie = "0123456789abcdef0123456789abcdef"
