package actors

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// goroutineID reads the running goroutine's id from its stack header, for
// telling goroutines apart in tests.
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.ParseUint(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return id
}

// inSelect reports whether goroutine id is blocked in a select statement,
// from the stack dump of all goroutines.
func inSelect(id uint64) bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	return bytes.Contains(buf, []byte("goroutine "+strconv.FormatUint(id, 10)+" [select"))
}

// waitFor polls cond until it holds or a generous bound passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// A mailbox scheduled after another finished runs on the parked worker,
// not on a fresh goroutine (protoactor's default dispatcher starts one per
// run, which fails this test).
func TestWorkerDispatcherReusesParkedWorker(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	d := newWorkerDispatcher(defaultThroughput, stop)
	ids := make(chan uint64, 1)
	d.Schedule(func() { ids <- goroutineID() })
	first := <-ids
	// parked counts a worker just before its select: wait until it waits
	// there, or Schedule's send finds no receiver yet and starts another.
	waitFor(t, "the worker to park", func() bool { return d.parked.Load() == 1 && inSelect(first) })
	d.Schedule(func() { ids <- goroutineID() })
	if second := <-ids; second != first {
		t.Fatalf("second run on goroutine %d, want the parked worker %d", second, first)
	}
}

// Runs beyond the workers parked all run at once, and afterwards no more
// than maxParkedWorkers stay parked; closing stop ends them all.
func TestWorkerDispatcherBoundsAndStops(t *testing.T) {
	before := runtime.NumGoroutine()
	stop := make(chan struct{})
	d := newWorkerDispatcher(defaultThroughput, stop)
	const n = maxParkedWorkers + 50
	var started, release sync.WaitGroup
	started.Add(n)
	release.Add(1)
	for range n {
		d.Schedule(func() { started.Done(); release.Wait() })
	}
	started.Wait() // all n ran concurrently: none waited for a worker
	release.Done()
	waitFor(t, "workers to park or exit", func() bool {
		return d.parked.Load() == maxParkedWorkers && runtime.NumGoroutine() <= before+maxParkedWorkers
	})
	close(stop)
	waitFor(t, "parked workers to exit", func() bool {
		return d.parked.Load() == 0 && runtime.NumGoroutine() <= before
	})
	ran := make(chan struct{})
	d.Schedule(func() { close(ran) }) // after stop: still runs
	<-ran
}

// shed ends the parked workers, and the dispatcher parks new ones after.
func TestWorkerDispatcherShed(t *testing.T) {
	before := runtime.NumGoroutine()
	stop := make(chan struct{})
	defer close(stop)
	d := newWorkerDispatcher(defaultThroughput, stop)
	const n = 20
	var started, release sync.WaitGroup
	started.Add(n)
	release.Add(1)
	for range n {
		d.Schedule(func() { started.Done(); release.Wait() })
	}
	started.Wait()
	release.Done()
	waitFor(t, "the workers to park", func() bool { return d.parked.Load() == n })
	// A worker counts itself parked just before it waits: shed again until
	// each has been reached.
	waitFor(t, "the parked workers to exit", func() bool {
		d.shed()
		return d.parked.Load() == 0 && runtime.NumGoroutine() <= before
	})
	ran := make(chan struct{})
	d.Schedule(func() { close(ran) })
	<-ran
	waitFor(t, "a worker to park again", func() bool { return d.parked.Load() == 1 })
}
