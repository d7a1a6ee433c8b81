package guides

import (
	"fmt"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// TestReasonOfSharedCauses: a vote whose commit outlasted the wait may
// have been counted, and is never answered internal_error; a full disk is
// told apart.
func TestReasonOfSharedCauses(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want Reason
	}{
		{Fail(ReasonInternal, actors.ErrTimeout), ReasonOutcomeUnknown},
		{fmt.Errorf("vote: %w", storage.ErrCommitUncertain), ReasonOutcomeUnknown},
		{Fail(ReasonInternal, storage.ErrDiskFull), ReasonStorageFull},
		{Fail(ReasonWrongAccount, nil), ReasonWrongAccount},
		{fmt.Errorf("other"), ReasonInternal},
	} {
		if got := ReasonOf(tt.err); got != tt.want {
			t.Errorf("ReasonOf(%v) = %s, want %s", tt.err, got.Message(), tt.want.Message())
		}
	}
}
