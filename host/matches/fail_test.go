package matches

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/storage"
)

// TestFail: each failure's HTTP status (what managers read) and sentence;
// an unknown outcome is never answered as a refusal.
func TestFail(t *testing.T) {
	a := &Area{log: slog.New(slog.DiscardHandler)}
	for _, tc := range []struct {
		err    error
		status int
		text   string
	}{
		{errNoSession, 401, "unknown or ended server session"},
		{errNotGameHost, 403, "may not run game servers"},
		{errForeign, 403, "another server"},
		{fmt.Errorf("%w: %w", area.ErrBadRequest, errors.New("x")), 400, "bad request"},
		{fmt.Errorf("commit: %w", storage.ErrCommitUncertain), 503, "did not learn whether"},
		{fmt.Errorf("fenced: %w", storage.ErrConflict), 503, "busy"},
		{errors.New("a bug"), 500, "could not do this"},
	} {
		r := a.fail(tc.err)
		if r.Status != tc.status || !strings.Contains(string(r.Body), tc.text) || !strings.HasPrefix(string(r.Body), `a:1:{s:5:"error";`) {
			t.Errorf("%v: %d %q; want %d with %q", tc.err, r.Status, r.Body, tc.status, tc.text)
		}
	}
}
