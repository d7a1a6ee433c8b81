package cluster

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// A request that reaches its account's home node is served there directly
// while the account's grain is live on it (serveAtHome): no protoactor
// future, no grain mailbox, no goroutine hand-off and no protobuf copy of
// the request and its reply. Before, such a request (one in three in a
// three-node cluster, every one in a cluster of one) took the same path as
// a request from another node, through the grain.
//
// It is served exactly as that path served it: after the grain's start
// (which makes the local actor start afresh, see grain), under the same
// deadline (the forwarding deadline, less the reply's margin), counted in
// the node's in-flight requests that Stop waits for, and marked as
// forwarded (actors.ForwardedContext: never run again after a fence).
// Whenever the grain is not live here (not yet started, idle-stopped,
// moved by a topology change, or stopping) the request takes the grain's
// path, which activates or finds it.

// localGrain is the part of a live grain that requests served directly at
// home use: it keeps the grain from stopping for idleness while they run
// or ran recently, and refuses them once the grain stops.
type localGrain struct {
	// uses is the number of direct requests running; closedBit is set
	// once the grain is stopping (no direct request starts after that).
	uses atomic.Int64
	// last is when the last direct request started (Unix nanoseconds):
	// they do not pass through the grain's mailbox, so they do not reset
	// its idle timer; retire reads this instead.
	last atomic.Int64
}

const closedBit = int64(1) << 62

// enter admits one direct request (false: the grain is stopping).
func (l *localGrain) enter(now time.Time) bool {
	for {
		u := l.uses.Load()
		if u&closedBit != 0 {
			return false
		}
		if l.uses.CompareAndSwap(u, u+1) {
			l.last.Store(now.UnixNano())
			return true
		}
	}
}

func (l *localGrain) exit() { l.uses.Add(-1) }

// retire closes l and reports true if no direct request runs and none
// started within idle of now. The grain asks when its mailbox was idle for
// grainIdle; when it gets false it asks again grainIdle later, so a grain
// stops between one and two grainIdle after its last request.
func (l *localGrain) retire(now time.Time, idle time.Duration) bool {
	return now.Sub(time.Unix(0, l.last.Load())) >= idle && l.uses.CompareAndSwap(0, closedBit)
}

// close refuses every later direct request; those running finish.
func (l *localGrain) close() {
	for {
		u := l.uses.Load()
		if u&closedBit != 0 || l.uses.CompareAndSwap(u, u|closedBit) {
			return
		}
	}
}

// serveAtHome serves r here when id's grain is live on this node (which
// the caller found to be id's home); false: it is not, or the node is
// leaving, and the request takes the grain's path (Forward).
func (n *Node) serveAtHome(ctx context.Context, id storage.AccountID, r *wire.Request, by time.Time) (server.Response, bool) {
	v, ok := n.locals.Load(id)
	if !ok {
		return server.Response{}, false
	}
	serve := n.served.Load()
	if serve == nil {
		return server.Response{}, false
	}
	l := v.(*localGrain)
	if !l.enter(time.Now()) {
		return server.Response{}, false
	}
	defer l.exit()
	if !n.inflight.enter() {
		return server.Response{}, false
	}
	defer n.inflight.exit()
	// Counted as the grain's path counted it (forwarded to, and served
	// by, the account's node: the metrics' figures keep their meaning).
	n.forwarded.Add(1)
	n.servedHere.Add(1)
	n.servedAtHome.Add(1)
	ctx, cancel := context.WithDeadline(actors.ForwardedContext(ctx), by)
	defer cancel()
	return (*serve)(ctx, r), true
}
