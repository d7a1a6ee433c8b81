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
