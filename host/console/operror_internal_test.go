package console

import (
	"errors"
	"fmt"
	"testing"

	"github.com/honmaster/masterserver/storage"
)

// TestOperatorErrorHasNoPackageNames: an error the console shows keeps
// none of the package names its text carries, the new areas' included
// (the console kept a short list of its own, which missed them).
func TestOperatorErrorHasNoPackageNames(t *testing.T) {
	for err, want := range map[error]string{
		fmt.Errorf("guides: storage: %w", storage.ErrDiskFull): "not enough free disk space; writes refused",
		errors.New("dailyarea: reportsapi: limit reached"):     "limit reached",
		errors.New("cluster: node 2 is away"):                  "node 2 is away",
		storage.ErrNotFound:                                    "no such account",
	} {
		if got := operatorError(err); got != want {
			t.Errorf("operatorError(%q) = %q, want %q", err, got, want)
		}
	}
}
