package supervisor

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/honmaster/masterserver/plugins/sdk"
)

// TestStuckWatch: a plugin is taken for hung only after its decisions
// went unanswered for a call period after the first timed out; the calls
// of one batch, which all time out at once, do not do it; any answer, a
// refusal included, ends the silence; a caller that gave up tells
// nothing.
func TestStuckWatch(t *testing.T) {
	const call = time.Second
	timeout := fmt.Errorf("%w: %w", sdk.ErrUnavailable, context.DeadlineExceeded)
	refused := fmt.Errorf("%w: no", sdk.ErrPluginFailed)
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	live := context.Background()
	t0 := time.Unix(1_000_000, 0)
	hung := func(w *stuckWatch) bool {
		select {
		case <-w.hung:
			return true
		default:
			return false
		}
	}
	w := &stuckWatch{hung: make(chan struct{})}
	for range 50 { // one batch's calls
		w.note(live, timeout, call, t0)
	}
	w.note(live, timeout, call, t0.Add(call/2))
	w.note(gone, timeout, call, t0.Add(2*call)) // its caller gave up
	if hung(w) {
		t.Fatal("hung after one batch's timeouts (and a caller's own)")
	}
	w.note(live, refused, call, t0.Add(2*call)) // an answer
	w.note(live, timeout, call, t0.Add(3*call))
	w.note(live, timeout, call, t0.Add(4*call-time.Millisecond))
	if hung(w) {
		t.Fatal("hung within a call period of the silence's start")
	}
	w.note(live, timeout, call, t0.Add(4*call))
	if !hung(w) {
		t.Fatal("not hung after a call period of silence")
	}
	w.note(live, timeout, call, t0.Add(5*call)) // closed once only
	if !errors.Is(timeout, context.DeadlineExceeded) {
		t.Fatal("the test's timeout is not a deadline")
	}
}
