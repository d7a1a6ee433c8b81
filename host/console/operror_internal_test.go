package console

import (
	"errors"
	"fmt"
	"testing"

	"github.com/honmaster/masterserver/actors"
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

// TestOperatorErrorExpired: an expired change was refused before it ran
// (nothing written), so the console says so; only a timeout leaves the
// outcome unknown.
func TestOperatorErrorExpired(t *testing.T) {
	for err, want := range map[error]string{
		fmt.Errorf("grant: %w", actors.ErrExpired): "the server was too busy to get to the action in time; nothing was changed, try again",
		fmt.Errorf("grant: %w", actors.ErrTimeout): "the server did not answer in time; the action may or may not have been applied (check, then retry)",
	} {
		if got := operatorError(err); got != want {
			t.Errorf("operatorError(%q) = %q, want %q", err, got, want)
		}
	}
}
