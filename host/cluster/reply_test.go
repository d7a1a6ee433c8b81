package cluster

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/cluster/internal/clusterpb"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/wire"
)

// TestAReplyTooLargeForThePortIsOfUnknownOutcome: a reply the forwarding
// node's port would refuse (it bounds messages by server.body_limit and
// its overhead) closed the connection with every request in flight on it;
// it is now replaced by a reply that says the request was served but its
// outcome cannot be told, which the forwarding node answers
// ErrReplyTooLarge (an outcome unknown, not a failure: the change may have
// been made); a reply that fits passes whole.
func TestAReplyTooLargeForThePortIsOfUnknownOutcome(t *testing.T) {
	n := &Node{cfg: Config{BodyLimit: 64 << 10}, log: slog.New(slog.DiscardHandler), prov: alwaysServing{}}
	body := []byte("fits")
	serve := ServeLocal(func(context.Context, *wire.Request) server.Response { return server.Response{Body: body} })
	n.served.Store(&serve)
	var got *clusterpb.Reply
	n.serveForward(toForward(&wire.Request{Path: "/"}, time.Now().Add(time.Minute), "b"), func(r *clusterpb.Reply) { got = r })
	if !bytes.Equal(got.GetBody(), body) || got.GetStatus() != 0 || got.GetOutcomeUnknown() {
		t.Fatalf("a small reply: %d %q, outcome unknown %v", got.GetStatus(), got.GetBody(), got.GetOutcomeUnknown())
	}
	if resp, handled, err := replied(got); err != nil || !handled || !bytes.Equal(resp.Body, body) {
		t.Fatalf("the small reply where it was forwarded from: %q, %v, %v", resp.Body, handled, err)
	}
	body = make([]byte, n.cfg.maxMessage())
	n.serveForward(toForward(&wire.Request{Path: "/"}, time.Now().Add(time.Minute), "b"), func(r *clusterpb.Reply) { got = r })
	if !got.GetOutcomeUnknown() || len(got.GetBody()) != 0 {
		t.Fatalf("a reply of %d bytes: outcome unknown %v, %d bytes", len(body), got.GetOutcomeUnknown(), len(got.GetBody()))
	}
	if _, handled, err := replied(got); !handled || !errors.Is(err, ErrReplyTooLarge) || !errors.Is(err, actors.ErrTimeout) {
		t.Fatalf("the large reply where it was forwarded from: %v, %v; want an outcome unknown", handled, err)
	}
}

// alwaysServing is a membership whose node serves (serving is all that
// serveForward asks of it).
type alwaysServing struct{ membership }

func (alwaysServing) serving() error { return nil }

// TestARequestSentWithNoTimeLeftIsNotServed: a request whose time ran out
// before it was sent (its grain looked up meanwhile) went with a time left
// that is not positive, which the home read as none given: only its
// wall-clock deadline bounded it, on the home's clock, which may run
// behind. It is refused, having done nothing; so is a request whose
// cancellation came first, however late it comes. (From reviews of the
// cluster code.)
func TestARequestSentWithNoTimeLeftIsNotServed(t *testing.T) {
	n := &Node{cfg: Config{Node: "home", RequestTimeout: time.Minute}, log: slog.New(slog.DiscardHandler), prov: alwaysServing{}}
	served := 0
	serve := ServeLocal(func(context.Context, *wire.Request) server.Response {
		served++
		return server.Response{Body: []byte("applied")}
	})
	n.served.Store(&serve)
	serveBy := time.Now().Add(-time.Millisecond)                                 // the sender's time ran out
	m := toForward(&wire.Request{Path: "/"}, serveBy.Add(10*time.Second), "via") // the home's clock 10 s behind
	m.RequestId, m.TimeoutNanos = 8, timeLeft(serveBy)
	var got *clusterpb.Reply
	n.serveForward(m, func(r *clusterpb.Reply) { got = r })
	if served != 0 || got.GetRefused() == "" {
		t.Fatalf("a request sent with no time left: served %d times, reply %v; want refused", served, got)
	}
	// An earlier version's node sends no time left at all (0): served by
	// the deadline alone.
	m.RequestId, m.TimeoutNanos = 9, 0
	n.serveForward(m, func(r *clusterpb.Reply) { got = r })
	if served != 1 {
		t.Fatalf("a request without a time left: served %d times, reply %v; want served", served, got)
	}
	// A cancellation that came before its request refuses it however late
	// the request comes (its forwarding node answered it as of unknown
	// outcome): with its entry past its keep, the request used to be served.
	m.RequestId, m.TimeoutNanos = 10, int64(time.Minute)
	n.cancels.cancel(forwardKey{"via", 10}, -time.Second)
	n.serveForward(m, func(r *clusterpb.Reply) { got = r })
	if served != 1 || got.GetRefused() == "" {
		t.Errorf("a request cancelled before it came, arriving late: served %d times, reply %v; want refused", served, got)
	}
}
