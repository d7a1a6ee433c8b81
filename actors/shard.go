package actors

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/honmaster/masterserver/storage"
)

// child is a shard's view of one account actor.
type child struct {
	pid      *actor.PID
	lastUse  int64 // monoNanos of its last request (a time.Time is 24 bytes)
	stopping bool
	held     *[]*envelope // requests held while the actor stops (nil: none; a pointer, 16 bytes less per live account)
	// state is the account's published state (see account.publish), nil
	// until it is loaded and from the moment the actor stops. It lives
	// here, not in a map of its own: a sync.Map entry per live account
	// cost ~150 bytes more (100k players online: ~14 MiB).
	state atomic.Pointer[storage.Account]
	// act numbers the activation in cluster mode (System.activations, 0
	// until its owner epoch is stored): the sessions cached for it are
	// valid while it is the one loaded here (System.clusterSession).
	act atomic.Uint64
}

// shard routes the requests of the accounts hashed to it to their actors: it
// spawns an account's actor on its first request, passivates idle ones, and
// holds the requests that arrive while an actor stops until its successor
// runs. It is a routing table under a lock, not an actor: a request goes
// straight from its asker to the account's mailbox (a shard actor in between
// cost every request a mailbox and a goroutine hand-off, about 4% of a
// drop's server CPU). The lock guards only the table, never an account's
// state, which its actor alone touches; it is held for a map lookup and a
// mailbox post (and, when an account has no actor, its spawn). Because every
// post to an account actor and the poison that stops it are made under the
// lock, no request is ever queued behind the poison (protoactor drops what a
// stopped actor's mailbox still holds).
type shard struct {
	sys *System

	mu       sync.Mutex
	children map[storage.AccountID]*child
	peak     int // the most children since the table was last rebuilt (compact, memory.go)
	// stopping counts the children told to stop (c.stopping) that have
	// not stopped yet; idle holds the idle ones the last sweep found that
	// wait for their turn to stop (see sweep), as of sweptAt (monoNanos of
	// the sweep's now); peakStopping is the most stopping at once (for
	// tests).
	stopping     int
	idle         []storage.AccountID
	sweptAt      int64
	peakStopping int
	// drained is made when the shard starts draining (from then on it spawns
	// nothing more) and closed once no account actor is left.
	drained chan struct{}
}

func newShard(s *System) *shard {
	return &shard{sys: s, children: map[storage.AccountID]*child{}}
}

// deliver implements destination: it posts env to its account's actor,
// spawning the actor first if none runs, or holds env while the actor
// stops.
func (sh *shard) deliver(env *envelope) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	c := sh.children[env.ID]
	if c == nil && sh.drained != nil {
		env.respond(&failure{Err: ErrStopped})
		return
	}
	if c == nil {
		var err error
		if c, err = sh.spawn(env.ID); err != nil {
			env.respond(&failure{Err: err})
			return
		}
	}
	if c.stopping {
		if c.held == nil {
			c.held = new([]*envelope)
		}
		*c.held = append(*c.held, env)
		return
	}
	c.lastUse = monoNanos(time.Now())
	sh.sys.as.Root.Send(c.pid, env) // the actor answers the asker itself
}

// sweep passivates the account actors idle since before now minus the idle
// timeout, maxSweepStops at a time (stopIdle). Poison is queued behind
// every request already posted, so they are all served before the actor
// stops; later ones are held until then.
func (sh *shard) sweep(now time.Time) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	idle := sh.sys.IdleTimeout()
	sh.idle, sh.sweptAt = sh.idle[:0], monoNanos(now)
	for id, c := range sh.children {
		if !c.stopping && time.Duration(sh.sweptAt-c.lastUse) >= idle {
			sh.idle = append(sh.idle, id)
		}
	}
	sh.stopIdle()
}

// maxSweepStops bounds the actors of a shard that a sweep has stopping at
// once: each stop runs on a goroutine of the dispatcher's, and a sweep
// that stopped 100k idle actors at once started ~4,700 goroutines, whose
// structures the Go runtime keeps for good (~2.5 MiB) after they end. As
// each actor stops, the next idle one is told to (stopped): 32 shards stop
// 256 at a time, no slower than the goroutines could run anyway.
const maxSweepStops = 8

// stopIdle tells the idle actors the last sweep found to stop, while fewer
// than maxSweepStops of the shard's are stopping; those used since the
// sweep are left alone. sh.mu is held.
func (sh *shard) stopIdle() {
	idle := sh.sys.IdleTimeout()
	for sh.stopping < maxSweepStops && len(sh.idle) > 0 {
		id := sh.idle[len(sh.idle)-1]
		sh.idle = sh.idle[:len(sh.idle)-1]
		if c := sh.children[id]; c != nil && !c.stopping && time.Duration(sh.sweptAt-c.lastUse) >= idle {
			sh.stop(c)
		}
	}
	if len(sh.idle) == 0 && cap(sh.idle) > maxSweepStops {
		sh.idle = nil // it held every idle actor of a sweep
	}
}

// stop tells the actor of c to stop, after the requests already posted to
// it. sh.mu is held.
func (sh *shard) stop(c *child) {
	c.stopping = true
	sh.stopping++
	sh.peakStopping = max(sh.peakStopping, sh.stopping)
	sh.sys.as.Root.Poison(c.pid)
}

// release stops the actor of account id, if one runs, after the requests
// already posted to it; later requests are held for its successor, a fresh
// activation.
func (sh *shard) release(id storage.AccountID) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if c := sh.children[id]; c != nil && !c.stopping {
		sh.stop(c)
	}
}

// drain stops every account actor of the shard, each after the requests
// already posted to it, and returns a channel closed once they have all
// stopped. Requests arriving later are answered ErrStopped.
func (sh *shard) drain() <-chan struct{} {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.drained == nil {
		sh.drained = make(chan struct{})
		for _, c := range sh.children {
			if !c.stopping {
				sh.stop(c)
			}
		}
		sh.closeIfDrained()
	}
	return sh.drained
}

// stopped is told by the actor pid of account id, from its Stopped handler
// (after protoactor removed it from its registry, so a successor may take
// its name): the actor leaves the table, and the requests held for it go to
// a successor.
func (sh *shard) stopped(id storage.AccountID, pid *actor.PID) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	defer sh.closeIfDrained()
	c := sh.children[id]
	if c == nil || c.pid != pid { // the same *PID as spawn returned
		return
	}
	delete(sh.children, id)
	sh.sys.live.Add(-1)
	if c.stopping {
		sh.stopping--
		if sh.drained == nil {
			sh.sys.passivations.Add(1)
			sh.stopIdle()
		}
	}
	var held []*envelope
	if c.held != nil {
		held = *c.held
	}
	if len(held) == 0 {
		return
	}
	if sh.drained != nil {
		// A successor spawned now would outlive the system (and the
		// database): tell the held requests the system stopped.
		fail(held, ErrStopped)
		return
	}
	next, err := sh.spawn(id)
	if err != nil {
		fail(held, err)
		return
	}
	for _, env := range held {
		sh.sys.as.Root.Send(next.pid, env)
	}
}

// slot returns where the actor pid of account id publishes its state: its
// child's. An actor that is not in the table (it cannot be: spawn adds it
// before its Started runs, under the same lock) gets a slot no reader sees.
func (sh *shard) slot(id storage.AccountID, pid *actor.PID) *child {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if c := sh.children[id]; c != nil && c.pid == pid {
		return c
	}
	return new(child)
}

// loadedAct returns the number of account id's activation here (cluster
// mode), 0 when its actor is not live, is stopping (it is being replaced,
// perhaps because its state is stale: Reactivate) or has not loaded it.
func (sh *shard) loadedAct(id storage.AccountID) uint64 {
	sh.mu.Lock()
	c := sh.children[id]
	stopping := c != nil && c.stopping
	sh.mu.Unlock()
	if c == nil || stopping || c.state.Load() == nil {
		return 0
	}
	return c.act.Load()
}

// published returns the published state of account id, nil when its actor
// is not live or has not loaded it.
func (sh *shard) published(id storage.AccountID) *storage.Account {
	sh.mu.Lock()
	c := sh.children[id]
	sh.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.state.Load()
}

// spawn starts the actor of account id; sh.mu is held. All account actors
// share one Props and are named after their account (the actor reads its
// id from its name); a name is free again once its actor has stopped, which
// the actor tells its shard itself (see account.Receive).
//
// Account actors are spawned from the root, not as children of another
// actor, and not watched: protoactor's PIDSet.Remove (a parent's children
// set) leaves the vacated slot holding the last PID, whose cached process
// keeps a stopped actor (mailbox, context, account state) reachable from
// the parent; and a watch, like a receiver middleware, makes protoactor
// give every actor a context extras with its sets (about 1 KiB per live
// account). The shard's map is the only reference it keeps.
func (sh *shard) spawn(id storage.AccountID) (*child, error) {
	pid, err := sh.sys.as.Root.SpawnNamed(sh.sys.accountProps, pidName(id))
	if err != nil {
		return nil, fmt.Errorf("%w: account %d: %w", ErrStopped, id, err)
	}
	c := &child{pid: pid, lastUse: monoNanos(time.Now())}
	sh.children[id] = c
	sh.peak = max(sh.peak, len(sh.children))
	sh.sys.live.Add(1)
	return c, nil
}

// closeIfDrained closes drained once the shard stops and no account actor
// is left; sh.mu is held.
func (sh *shard) closeIfDrained() {
	if sh.drained != nil && len(sh.children) == 0 {
		select {
		case <-sh.drained:
		default:
			close(sh.drained)
		}
	}
}

// fail answers held requests with err.
func fail(held []*envelope, err error) {
	for _, env := range held {
		env.respond(&failure{Err: err})
	}
}

// monoEpoch is when the package was loaded: monoNanos counts from it.
var monoEpoch = time.Now()

// monoNanos is t in nanoseconds since monoEpoch, on the monotonic clock
// (t must come from time.Now, which carries a monotonic reading), so that
// a change of the wall clock never passivates an actor early or late.
func monoNanos(t time.Time) int64 { return int64(t.Sub(monoEpoch)) }

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
