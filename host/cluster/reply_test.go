package cluster

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/cluster/internal/clusterpb"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/wire"
)

// TestAReplyTooLargeForThePortIsAnError: a reply the forwarding node's
// port would refuse (it bounds messages by server.body_limit and its
// overhead) closed the connection with every request in flight on it; it
// is now replaced by an error reply, and a reply that fits passes whole.
func TestAReplyTooLargeForThePortIsAnError(t *testing.T) {
	n := &Node{cfg: Config{BodyLimit: 64 << 10}, log: slog.New(slog.DiscardHandler), prov: alwaysServing{}}
	body := []byte("fits")
	serve := ServeLocal(func(context.Context, *wire.Request) server.Response { return server.Response{Body: body} })
	n.served.Store(&serve)
	var got *clusterpb.Reply
	n.serveForward(toForward(&wire.Request{Path: "/"}, time.Now().Add(time.Minute), "b"), func(r *clusterpb.Reply) { got = r })
	if !bytes.Equal(got.GetBody(), body) || got.GetStatus() != 0 {
		t.Fatalf("a small reply: %d %q", got.GetStatus(), got.GetBody())
	}
	body = make([]byte, n.cfg.maxMessage())
	n.serveForward(toForward(&wire.Request{Path: "/"}, time.Now().Add(time.Minute), "b"), func(r *clusterpb.Reply) { got = r })
	if got.GetStatus() != 500 || len(got.GetBody()) > 1000 {
		t.Fatalf("a reply of %d bytes: status %d, %d bytes", len(body), got.GetStatus(), len(got.GetBody()))
	}
}

// alwaysServing is a membership whose node serves (serving is all that
// serveForward asks of it).
type alwaysServing struct{ membership }

func (alwaysServing) serving() error { return nil }
