package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/honmaster/masterserver/storage"
)

// pending is a request held while its account actor stops.
type pending struct {
	msg    any
	sender *actor.PID
}

// child is a shard's view of one account actor.
type child struct {
	pid      *actor.PID
	lastUse  time.Time
	stopping bool
	held     []pending
}

// shard owns the account actors hashed to it.
type shard struct {
	sys      *System
	children map[storage.AccountID]*child
	byPID    map[string]storage.AccountID
	stopping bool       // the shard is draining or stopping: spawn nothing more
	drainer  *actor.PID // asked for the drain; answered once no account actor is left
}

func newShard(s *System) *shard {
	return &shard{sys: s, children: map[storage.AccountID]*child{}, byPID: map[string]storage.AccountID{}}
}

func (sh *shard) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *envelope:
		c := sh.children[m.ID]
		if c == nil && sh.stopping {
			if ctx.Sender() != nil {
				ctx.Respond(&failure{Err: ErrStopped})
			}
			return
		}
		if c == nil {
			c = sh.spawn(ctx, m.ID)
		}
		msg := &stamped{Msg: m.Msg, Sent: m.Sent}
		if c.stopping {
			c.held = append(c.held, pending{msg, ctx.Sender()})
			return
		}
		c.lastUse = time.Now()
		ctx.RequestWithCustomSender(c.pid, msg, ctx.Sender())
	case *sweep:
		// The shard sees every request, so it knows who is idle. Poison is
		// queued behind every request already forwarded, so they are all
		// served before the actor stops; later ones are held until then.
		for _, c := range sh.children {
			if !c.stopping && m.Now.Sub(c.lastUse) >= sh.sys.opts.IdleTimeout {
				c.stopping = true
				ctx.Poison(c.pid)
			}
		}
	case *drain:
		// The account actors are not the shard's children (see spawn), so the
		// shard stops them itself before it stops: each after the requests
		// already queued to it.
		sh.stopping = true
		sh.drainer = ctx.Sender()
		for _, c := range sh.children {
			if !c.stopping {
				c.stopping = true
				ctx.Poison(c.pid)
			}
		}
		sh.drained(ctx)
	case *actor.Terminated:
		defer sh.drained(ctx)
		id, ok := sh.byPID[m.Who.Id]
		if !ok {
			return
		}
		delete(sh.byPID, m.Who.Id)
		c := sh.children[id]
		delete(sh.children, id)
		sh.sys.live.Add(-1)
		if c != nil && c.stopping && !sh.stopping {
			sh.sys.passivations.Add(1)
		}
		if c != nil && len(c.held) > 0 {
			if sh.stopping {
				// A successor spawned now would outlive the shard (and the
				// database): tell the held requests the system stopped.
				for _, p := range c.held {
					if p.sender != nil {
						ctx.Send(p.sender, &failure{Err: ErrStopped})
					}
				}
				return
			}
			next := sh.spawn(ctx, id)
			for _, p := range c.held {
				ctx.RequestWithCustomSender(next.pid, p.msg, p.sender)
			}
		}
	case *actor.Stopping:
		sh.stopping = true
	case *actor.Started, *actor.Stopped, *actor.Restarting:
	default:
		ctx.Logger().Warn("shard: unexpected message", "type", typeName(m))
	}
}

func (sh *shard) spawn(ctx actor.Context, id storage.AccountID) *child {
	// Account actors are spawned from the root, not as the shard's children,
	// and watched: protoactor's PIDSet.Remove (the parent's children set)
	// leaves the vacated slot holding the last PID, whose cached process keeps
	// a stopped actor (mailbox, context, account state) reachable from the
	// parent. The shard's own maps are the only references it keeps.
	props := actor.PropsFromProducer(func() actor.Actor { return &account{sys: sh.sys, id: id} },
		actor.WithReceiverMiddleware(sh.sys.unstamp))
	pid := sh.sys.as.Root.Spawn(props)
	ctx.Watch(pid)
	c := &child{pid: pid, lastUse: time.Now()}
	sh.children[id] = c
	sh.byPID[pid.Id] = id
	sh.sys.live.Add(1)
	return c
}

// drained answers the drain request once no account actor is left.
func (sh *shard) drained(ctx actor.Context) {
	if sh.drainer != nil && len(sh.children) == 0 {
		ctx.Send(sh.drainer, &done{})
		sh.drainer = nil
	}
}
