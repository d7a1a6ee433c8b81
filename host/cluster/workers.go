package cluster

import "time"

// workers runs the forwarded requests a grain hands off (grain.Receive),
// each on a goroutine of its own as before, but on goroutines kept from
// earlier requests when some are free: a request's path (handler, account
// actor, storage) needs a stack of tens of kilobytes, which a new
// goroutine grows to by copying its stack several times, a few percent of
// a forwarded request's CPU. An idle goroutine exits after workerIdle; a
// request never waits for one (fasthttp's worker pool does the same for
// HTTP requests).
type workers struct {
	ready chan func() // unbuffered: a send succeeds only to an idle worker
}

// workerIdle is how long a worker waits for a request before it exits.
const workerIdle = 10 * time.Second

func newWorkers() *workers { return &workers{ready: make(chan func())} }

// run runs f on an idle worker, or on a new one.
func (w *workers) run(f func()) {
	select {
	case w.ready <- f:
	default:
		go w.work(f)
	}
}

func (w *workers) work(f func()) {
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		f()
		f = nil
		t.Reset(workerIdle)
		select {
		case f = <-w.ready:
		case <-t.C:
			return
		}
	}
}
