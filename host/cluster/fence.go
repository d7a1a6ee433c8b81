package cluster

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honmaster/masterserver/actors"
)

// FailureDetection is the shortest silence after which the other nodes
// may drop a node (static provider): a peer leaves their topology once it
// missed ProbeFailures probes in a row and nothing was heard from it for
// this long. The probes that find a paused node silent are sent at least
// ProbeInterval apart and each waits ProbeTimeout, so a pause shorter than
// this never loses a node its membership. 1.5 s by default
// (probe_failures × probe_interval when probe_timeout = probe_interval).
func (c Config) FailureDetection() time.Duration {
	return time.Duration(c.ProbeFailures-1)*c.ProbeInterval + c.ProbeTimeout
}

// SelfFence is how long a node may go without running (SIGSTOP, a frozen
// VM, CPU starvation) before it stops serving: three quarters of
// FailureDetection, strictly shorter, so that a node stops serving before
// the others may have dropped it (1.125 s by default). A fenced node
// answers every request "try again" and fails /healthz until a probe round
// started ProbeTimeout + ProbeInterval after it woke shows that every peer
// that answers still lists it (it serves again), or that one of them no
// longer does (it leaves: Node.Fatal).
func (c Config) SelfFence() time.Duration { return c.FailureDetection() * 3 / 4 }

// minSelfFence is the shortest SelfFence Start accepts: below it a node
// would stop serving at every scheduling hiccup of a loaded machine.
const minSelfFence = 100 * time.Millisecond

// validateTimings checks the probe settings and what is derived from them.
func (c Config) validateTimings() error {
	if c.ProbeInterval <= 0 || c.ProbeTimeout <= 0 || c.ProbeFailures < 1 {
		return fmt.Errorf("cluster probes: probe_interval (%v) and probe_timeout (%v) must be positive and probe_failures (%d) at least 1",
			c.ProbeInterval, c.ProbeTimeout, c.ProbeFailures)
	}
	if f := c.SelfFence(); f < minSelfFence {
		return fmt.Errorf("cluster probes: a node stops serving after %v without running (3/4 of (probe_failures-1) × probe_interval + probe_timeout), "+
			"which must be at least %v: raise probe_interval or probe_failures", f, minSelfFence)
	}
	return nil
}

// ErrNotServing answers the requests of a node that stopped serving after
// a pause (see Config.SelfFence): nothing was done, try again (another
// node, or this one once it confirmed its membership).
var ErrNotServing = fmt.Errorf("%w: this node is confirming its cluster membership after a pause", actors.ErrExpired)

// selfFence watches that the node keeps running: a watchdog goroutine beats
// every tick, and a gap between beats longer than after (the process did
// not run: paused or starved) fences the node until its membership is
// confirmed. Every request checks it (check), so requests that were
// waiting when the process stopped are refused even if they run before the
// watchdog does after the pause.
type selfFence struct {
	after, tick time.Duration
	base        time.Time    // the monotonic origin of beat
	beat        atomic.Int64 // nanoseconds since base of the watchdog's last beat
	fenced      atomic.Bool
	mu          sync.Mutex
	fencedAt    time.Time // when fenced was last set
	why         string
}

func newSelfFence(after time.Duration) *selfFence {
	f := &selfFence{after: after, tick: after / 8, base: time.Now()}
	return f
}

func (f *selfFence) now() int64 { return int64(time.Since(f.base)) }

// check is nil while the node serves; else it says why not. It fences the
// node itself when the watchdog's last beat is older than after.
func (f *selfFence) check() error {
	b := f.beat.Load() // before fenced: the watchdog sets fenced before it beats again
	if f.fenced.Load() {
		return f.err()
	}
	if gap := time.Duration(f.now() - b); gap > f.after {
		f.fence(gap)
		return f.err()
	}
	return nil
}

func (f *selfFence) err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fmt.Errorf("%w (%s)", ErrNotServing, f.why)
}

// fence stops serving after a gap of gap without running.
func (f *selfFence) fence(gap time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fenced.Load() {
		return
	}
	f.fencedAt = time.Now()
	f.why = "it did not run for " + gap.Round(time.Millisecond).String() + ", longer than its deadline of " + f.after.String()
	f.fenced.Store(true)
}

// beatNow is the watchdog's beat: a gap since the last one fences first.
func (f *selfFence) beatNow() {
	now := f.now()
	if gap := time.Duration(now - f.beat.Load()); gap > f.after {
		f.fence(gap)
	}
	f.beat.Store(now)
}

// confirmable reports whether a probe round that started at start may lift
// the fence: it began settle after the fence, when the peers' drops caused
// by the pause (if any) have happened. false when not fenced.
func (f *selfFence) confirmable(start time.Time, settle time.Duration) bool {
	if !f.fenced.Load() {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return !start.Before(f.fencedAt.Add(settle))
}

// lift serves again: the peers that answer all still list this node.
func (f *selfFence) lift() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.beat.Store(f.now())
	f.fenced.Store(false)
}

// watch beats every tick until done closes.
func (f *selfFence) watch(done <-chan struct{}) {
	t := time.NewTicker(f.tick)
	defer t.Stop()
	f.beat.Store(f.now())
	for {
		select {
		case <-done:
			return
		case <-t.C:
			f.beatNow()
		}
	}
}
