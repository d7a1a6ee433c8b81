package matches

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/server"
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

// TestFailRoute: what the host could not hand to a handler is answered by
// its cause: a body refused while large bodies were being read, and a
// request another node could not serve, are not "bad request".
func TestFailRoute(t *testing.T) {
	a := &Area{log: slog.New(slog.DiscardHandler)}
	for _, tc := range []struct {
		err    error
		status int
		text   string
	}{
		{server.ErrBusy, 503, "try again later"},
		{&server.NotServedError{Err: fmt.Errorf("lost: %w", storage.ErrCommitUncertain)}, 503, "did not learn whether"},
		{errors.New("the body is malformed"), 400, "bad request"},
	} {
		r := a.failRoute(tc.err)
		if r.Status != tc.status || !strings.Contains(string(r.Body), tc.text) {
			t.Errorf("%v: %d %q; want %d with %q", tc.err, r.Status, r.Body, tc.status, tc.text)
		}
	}
}
