package failure

import (
	"errors"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// Uncertain reports whether a failed write may nevertheless have been
// committed: the account's actor did not answer before the asker's wait
// ended (actors.ErrTimeout: its synced commit was still running, as on a
// stalled or full disk), or storage failed during the commit itself
// (storage.ErrCommitUncertain). Such a request must be answered "outcome
// unknown, check and retry", never "failed": a failure reply must not hide a
// write.
//
// Refusals made before anything was written (a busy mailbox, storage
// refusing writes below its free-space margin, a rule of the change) are not
// uncertain.
func Uncertain(err error) bool {
	return errors.Is(err, actors.ErrTimeout) || errors.Is(err, storage.ErrCommitUncertain)
}
