package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
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

// TestUncertainOutcomeIsNotBusy: a request whose write may have happened
// (the actor did not answer in time, or the commit's outcome is unknown)
// is not told "busy; try again", which could apply it twice: it is told
// the outcome is unknown.
func TestUncertainOutcomeIsNotBusy(t *testing.T) {
	for _, err := range []error{actors.ErrTimeout, fmt.Errorf("commit: %w", storage.ErrCommitUncertain)} {
		if got := publicMessage(err); !strings.Contains(got, "may or may not have been applied") {
			t.Errorf("publicMessage(%v) = %q, want an unknown outcome", err, got)
		}
	}
	if got := publicMessage(actors.ErrExpired); got != "the server is busy; try again" {
		t.Errorf("publicMessage(ErrExpired) = %q: nothing was written, a retry is safe", got)
	}
}
