package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/storage"
)

// A storage failure is worded for both backends: an uncertain commit is
// usually a lost connection on PostgreSQL, not a disk failure, and a lost
// database lock says what to do.
func TestStorageFailuresWordedForBothBackends(t *testing.T) {
	for _, c := range []struct {
		err  error
		want []string
	}{
		{fmt.Errorf("storage: commit: %w", storage.ErrCommitUncertain), []string{"disk", "connection to PostgreSQL", "may or may not"}},
		{fmt.Errorf("storage: commit: %w", storage.ErrPostgresLockLost), []string{"lost its lock", "nothing changed", "restart"}},
	} {
		msg := explain(c.err)
		assertNoPrefix(t, c.err.Error(), msg)
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%v is explained as %q; want it to say %q", c.err, msg, w)
			}
		}
	}
}
