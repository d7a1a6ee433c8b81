package loadtest

import (
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/honmaster/masterserver/host/srp"
)

// pinThread pins the calling goroutine's thread to the cores, for good:
// the goroutine must have called runtime.LockOSThread and never unlock
// it. When the goroutine ends, Go ends the thread with it rather than give
// it back to the scheduler, so no other goroutine of the tester ever runs
// there. Restoring the thread's previous affinity instead would leave the
// tester on the server's cores if the restore failed; a thread created
// per login phase costs nothing next to the measurement.
func pinThread(cores []int) error {
	var set unix.CPUSet
	set.Zero()
	for _, c := range cores {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil { // 0: this thread
		return fmt.Errorf("pinning a thread to cores %v: %w", cores, err)
	}
	return nil
}

// floorSampler measures the naive login floor's modexps (srp.NaiveFloor)
// during a login phase, on a thread pinned to the server's cores: one run
// of the three at the phase's start, then one every `every` until end.
// Sampled over the same seconds as the login's own CPU time, the floor
// meets the same machine: the same drift of a shared VM's speed (by up to
// a third within minutes) and the same load on the other cores (the
// tester's own SRP arithmetic). Measured after the phase instead, on a
// quiet machine, it came out 0-15% lower than during it. Each run takes
// about 1.2 ms of CPU: every 50 ms, ~2% of one of the server's cores,
// taken from the server as any process would take it, and not counted in
// the server's CPU time.
type floorSampler struct {
	stop chan struct{}
	done chan floorResult
}

type floorResult struct {
	mean time.Duration
	n    int
	err  error
}

// startFloor starts a floorSampler on the cores.
func startFloor(cores []int, every time.Duration) *floorSampler {
	s := &floorSampler{stop: make(chan struct{}), done: make(chan floorResult, 1)}
	go func() {
		runtime.LockOSThread() // never unlocked: see pinThread
		if err := pinThread(cores); err != nil {
			s.done <- floorResult{err: err}
			return
		}
		f, err := srp.NewNaiveFloor()
		if err != nil {
			s.done <- floorResult{err: err}
			return
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		var sum time.Duration
		for n := 1; ; n++ {
			d, err := f.CPU(1)
			if err != nil {
				s.done <- floorResult{err: err}
				return
			}
			sum += d
			select {
			case <-s.stop:
				s.done <- floorResult{mean: sum / time.Duration(n), n: n}
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

// end stops the sampler and returns the floor's mean CPU time per login
// over its samples, and their number.
func (s *floorSampler) end() (time.Duration, int, error) {
	close(s.stop)
	r := <-s.done
	return r.mean, r.n, r.err
}
