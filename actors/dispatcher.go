package actors

import (
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// maxParkedWorkers bounds the goroutines the account dispatcher keeps
// waiting for work. Each parked one holds a grown stack (8–32 KiB), so the
// bound costs at most a few MiB, and it covers the account actors a busy
// server has running at once (an actor's goroutine is busy for its whole
// change, plugin call and commit included). Beyond it, the dispatcher falls
// back to a fresh goroutine per run, protoactor's own behaviour.
const maxParkedWorkers = 256

// workerDispatcher runs account mailboxes on reused goroutines.
//
// protoactor's default dispatcher starts a new goroutine each time an idle
// mailbox gets a message, and an account's change (plugin call, storage
// commit, reply encoding) outgrows a fresh goroutine's stack, so every
// request paid for growing and copying a stack: ~6% of the server's CPU in
// a drop-only load profile (runtime.newstack/copystack under the plugin
// call). A parked worker keeps the stack it grew. The Go runtime still
// shrinks idle stacks at garbage collections, so a worker regrows at most
// once per GC cycle instead of once per message.
type workerDispatcher struct {
	throughput int
	work       chan func() // unbuffered: a send succeeds only if a worker waits
	stop       <-chan struct{}
	parked     atomic.Int32
}

// newWorkerDispatcher returns a dispatcher whose parked workers exit when
// stop is closed (the system's shutdown); work scheduled after that still
// runs, each on a goroutine of its own.
func newWorkerDispatcher(throughput int, stop <-chan struct{}) *workerDispatcher {
	return &workerDispatcher{throughput: throughput, work: make(chan func()), stop: stop}
}

var _ actor.Dispatcher = (*workerDispatcher)(nil)

// Schedule hands fn to a parked worker, or starts one.
func (d *workerDispatcher) Schedule(fn func()) {
	select {
	case d.work <- fn:
	default:
		go d.run(fn)
	}
}

// Throughput is how many messages a mailbox processes before yielding.
func (d *workerDispatcher) Throughput() int { return d.throughput }

// run runs fn, then parks for more work while fewer than maxParkedWorkers
// are parked; a worker that would exceed the bound exits, and so do parked
// workers once stop is closed.
func (d *workerDispatcher) run(fn func()) {
	for {
		fn()
		if d.parked.Add(1) > maxParkedWorkers {
			d.parked.Add(-1)
			return
		}
		select {
		case fn = <-d.work:
			d.parked.Add(-1)
			if fn == nil { // shed
				return
			}
		case <-d.stop:
			d.parked.Add(-1)
			return
		}
	}
}

// shed ends the workers parked now (a memory release, after a wave of
// passivations): each gives back the stack it grew, up to 32 KiB. Workers
// are parked again as the load comes back.
func (d *workerDispatcher) shed() {
	for {
		select {
		case d.work <- nil:
		default:
			return
		}
	}
}

// defaultThroughput is protoactor's default: messages a mailbox processes
// before it yields its goroutine.
const defaultThroughput = 300
