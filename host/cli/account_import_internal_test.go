package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/storage"
)

func init() { sampleArgs["account import"] = []string{"accounts.jsonl", "--batch", "500"} }

// An import that stopped says what is known of the lines after the last
// one handled: nothing written, unless its last commit's outcome is
// unknown. Before, every stop said the next batch "may or may not" be
// written, even when it was never sent.
func TestImportStoppedSaysWhatIsKnown(t *testing.T) {
	for _, tc := range []struct {
		name      string
		res       accounts.ImportResult
		err       error
		want, not []string
	}{
		{"admin deadline before a batch", accounts.ImportResult{Lines: 40, Created: 39, Refused: 1}, context.DeadlineExceeded,
			[]string{"after line 40 (39 accounts created, 1 lines refused)", "an admin command may run", "nothing after line 40 was written"},
			[]string{"may or may not"}},
		{"a refused commit", accounts.ImportResult{Lines: 7}, storage.ErrDiskFull,
			[]string{"nearly full", "nothing after line 7 was written"}, []string{"may or may not be written"}},
		{"a commit of unknown outcome", accounts.ImportResult{Lines: 40, Unknown: true}, fmt.Errorf("x: %w", storage.ErrCommitUncertain),
			[]string{"the outcome of the batch after line 40 is unknown", "the batch after it may or may not be written"},
			[]string{"nothing after"}},
		{"the admin deadline during a commit", accounts.ImportResult{Lines: 40, Unknown: true},
			fmt.Errorf("%w: %w", actors.ErrTimeout, context.DeadlineExceeded),
			[]string{"the outcome of the batch after line 40 is unknown (an admin command may run", "may or may not be written"},
			[]string{"nothing after"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := importStopped(tc.res, tc.err)
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q\nlacks %q", msg, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(msg, n) {
					t.Errorf("%q\nsays %q", msg, n)
				}
			}
		})
	}
}
