package loadtest

import (
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/honmaster/masterserver/host/srp"
)

// floorOn measures the modexps of the naive login floor (srp.NaiveModExpCPU,
// floorIterations times) on a thread pinned to the cores, and returns
// their CPU time per login.
func floorOn(cores []int) (time.Duration, error) {
	type result struct {
		d   time.Duration
		err error
	}
	done := make(chan result, 1)
	go func() {
		// The goroutine's thread is pinned to the server's cores and never
		// unlocked: when the goroutine ends, Go ends the thread with it
		// rather than give it back to the scheduler, so no other goroutine
		// of the tester ever runs there. Restoring the thread's previous
		// affinity instead would leave the tester on the server's cores if
		// the restore failed; a thread created per round costs nothing
		// next to the measurement.
		runtime.LockOSThread()
		var set unix.CPUSet
		set.Zero()
		for _, c := range cores {
			set.Set(c)
		}
		if err := unix.SchedSetaffinity(0, &set); err != nil { // 0: this thread
			done <- result{err: fmt.Errorf("pinning a thread to cores %v: %w", cores, err)}
			return
		}
		d, err := srp.NaiveModExpCPU(floorIterations)
		done <- result{d, err}
	}()
	r := <-done
	return r.d, r.err
}
