package server

import (
	"fmt"
	"testing"

	"github.com/honmaster/masterserver/actors"
)

// TestMovedAccountIsBusyNotInternal: a change refused because its account
// moved to another node while it ran (cluster mode, actors.ErrMoved) wrote
// nothing and can be sent again: the player is told to retry, not that
// the server failed.
func TestMovedAccountIsBusyNotInternal(t *testing.T) {
	err := fmt.Errorf("%w: account 7 is now served by a newer activation", actors.ErrMoved)
	if got, want := publicMessage(err), "the server is busy; try again"; got != want {
		t.Fatalf("publicMessage(ErrMoved) = %q, want %q", got, want)
	}
}
