package actors

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/honmaster/masterserver/storage"
)

// stopped tells a shard that the actor pid of account id has stopped.
type stopped struct {
	id  storage.AccountID
	pid *actor.PID
}

// child is a shard's view of one account actor.
type child struct {
	pid      *actor.PID
	lastUse  time.Time
	stopping bool
	held     []*envelope // requests held while the actor stops
}

// shard owns the account actors hashed to it.
type shard struct {
	sys      *System
	children map[storage.AccountID]*child
	stopping bool      // the shard is draining or stopping: spawn nothing more
	drainer  *envelope // the drain request; answered once no account actor is left
}

func newShard(s *System) *shard {
	return &shard{sys: s, children: map[storage.AccountID]*child{}}
}

func (sh *shard) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *envelope:
		if _, ok := m.Msg.(*drain); ok {
			sh.drain(ctx, m)
			return
		}
		c := sh.children[m.ID]
		if c == nil && sh.stopping {
			m.respond(&failure{Err: ErrStopped})
			return
		}
		if c == nil {
			var err error
			if c, err = sh.spawn(m.ID); err != nil {
				m.respond(&failure{Err: err})
				return
			}
		}
		if c.stopping {
			c.held = append(c.held, m)
			return
		}
		c.lastUse = time.Now()
		ctx.Send(c.pid, m) // the actor answers the asker itself
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
	case *stopped:
		defer sh.drained()
		c := sh.children[m.id]
		if c == nil || c.pid != m.pid { // the same *PID as spawn returned
			return
		}
		delete(sh.children, m.id)
		sh.sys.live.Add(-1)
		if c.stopping && !sh.stopping {
			sh.sys.passivations.Add(1)
		}
		if len(c.held) > 0 {
			if sh.stopping {
				// A successor spawned now would outlive the shard (and the
				// database): tell the held requests the system stopped.
				sh.fail(c.held, ErrStopped)
				return
			}
			next, err := sh.spawn(m.id)
			if err != nil {
				sh.fail(c.held, err)
				return
			}
			for _, env := range c.held {
				ctx.Send(next.pid, env)
			}
		}
	case *actor.Stopping:
		sh.stopping = true
	case *actor.Started, *actor.Stopped, *actor.Restarting:
	default:
		ctx.Logger().Warn("shard: unexpected message", "type", typeName(m))
	}
}

// spawn starts the actor of account id. All account actors share one Props
// and are named after their account (the actor reads its id from its
// name); a name is free again once its actor has stopped, which the actor
// tells its shard itself (see account.Receive).
//
// Account actors are spawned from the root, not as the shard's children,
// and not watched: protoactor's PIDSet.Remove (the parent's children set)
// leaves the vacated slot holding the last PID, whose cached process keeps
// a stopped actor (mailbox, context, account state) reachable from the
// parent; and a watch, like a receiver middleware, makes protoactor give
// every actor a context extras with its sets (about 1 KiB per live
// account). The shard's map is the only reference it keeps.
func (sh *shard) spawn(id storage.AccountID) (*child, error) {
	pid, err := sh.sys.as.Root.SpawnNamed(sh.sys.accountProps, pidName(id))
	if err != nil {
		return nil, fmt.Errorf("%w: account %d: %w", ErrStopped, id, err)
	}
	c := &child{pid: pid, lastUse: time.Now()}
	sh.children[id] = c
	sh.sys.live.Add(1)
	return c, nil
}

// fail answers held requests with err.
func (sh *shard) fail(held []*envelope, err error) {
	for _, env := range held {
		env.respond(&failure{Err: err})
	}
}

// pidPrefix starts the name of every account actor: "acct/" and the
// account id in decimal.
const pidPrefix = "acct/"

func pidName(id storage.AccountID) string { return pidPrefix + strconv.FormatUint(uint64(id), 10) }

// accountOfPID is the account an account actor serves, from its name.
func accountOfPID(pid *actor.PID) storage.AccountID {
	n, err := strconv.ParseUint(strings.TrimPrefix(pid.Id, pidPrefix), 10, 32)
	if err != nil {
		panic(fmt.Sprintf("actors: account actor with a foreign name %q", pid.Id)) // only spawn names them
	}
	return storage.AccountID(n)
}

// drain stops every account actor of the shard, each after the requests
// already queued to it, and answers env once they have all stopped. (The
// account actors are not the shard's children, see spawn, so the shard
// stops them itself before it stops.)
func (sh *shard) drain(ctx actor.Context, env *envelope) {
	sh.stopping = true
	sh.drainer = env
	for _, c := range sh.children {
		if !c.stopping {
			c.stopping = true
			ctx.Poison(c.pid)
		}
	}
	sh.drained()
}

// drained answers the drain request once no account actor is left.
func (sh *shard) drained() {
	if sh.drainer != nil && len(sh.children) == 0 {
		sh.drainer.respond(&done{})
		sh.drainer = nil
	}
}
