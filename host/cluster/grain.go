package cluster

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"

	"github.com/honmaster/masterserver/host/cluster/internal/clusterpb"
	"github.com/honmaster/masterserver/storage"
)

// grain is an account's activation in the cluster: it exists on the
// account's home node, makes the local actor take the account over when it
// starts, and serves the requests forwarded to the account, each on a
// goroutine of its own (workers: the account's actor orders its writes,
// as for requests that arrive on the node directly).
type grain struct {
	n     *Node
	id    storage.AccountID
	ok    bool
	local *localGrain // registered in n.locals while the grain is live (serveAtHome)
}

func (g *grain) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		if ci := cluster.GetClusterIdentity(ctx); ci != nil {
			g.id, g.ok = parseIdentity(ci.Identity)
		}
		if sys := g.n.sys.Load(); sys != nil && g.ok {
			// An actor left from an earlier stay here may hold state that
			// another node changed since: start afresh, with a new epoch.
			sys.Reactivate(g.id)
		}
		if g.ok {
			// From here on, requests that reach this node are served here
			// directly (serveAtHome): after the fresh start above.
			g.local = &localGrain{}
			g.local.last.Store(time.Now().UnixNano())
			g.n.locals.Store(g.id, g.local)
		}
		ctx.SetReceiveTimeout(grainIdle)
	case *actor.ReceiveTimeout:
		// No message for grainIdle; requests served directly do not pass
		// through the mailbox, so ask them too.
		if g.local != nil && !g.local.retire(time.Now(), grainIdle) {
			ctx.SetReceiveTimeout(grainIdle)
			return
		}
		ctx.Poison(ctx.Self())
	case *actor.Stopping:
		if g.local != nil {
			g.local.close()
			g.n.locals.CompareAndDelete(g.id, g.local)
		}
	case *clusterpb.Reactivate:
		// Another node changed the account in a transient activation: the
		// local actor's state is from before (see Node.Changed).
		if sys := g.n.sys.Load(); sys != nil && g.ok {
			sys.Reactivate(g.id)
		}
	case *clusterpb.Cancel:
		// The forwarding node gave up on a request (see Node.Forward).
		g.n.cancels.cancel(forwardKey{m.GetFromNode(), m.GetRequestId()}, 10*g.n.cfg.RequestTimeout)
	case *clusterpb.Forward:
		sender, root := ctx.Sender(), ctx.ActorSystem().Root
		if sender == nil {
			return
		}
		if !g.ok {
			ctx.Respond(&clusterpb.Reply{Refused: "not an account"})
			return
		}
		g.n.workers.run(func() { g.n.serveForward(m, func(rep *clusterpb.Reply) { root.Send(sender, rep) }) })
	}
}
