package loadtest

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestFloorSampler: the floor's modexps run on a thread pinned to a core
// this process may use, at least once however soon the sampler ends, and
// take some CPU time (no bound on how much: the machine may be loaded); a
// core outside the machine is refused.
func TestFloorSampler(t *testing.T) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Skip("no affinity to read:", err)
	}
	core := -1
	for c := 0; c <= maxCore && core < 0; c++ {
		if set.IsSet(c) {
			core = c
		}
	}
	if d, n, err := startFloor([]int{core}, time.Millisecond).end(); err != nil || d <= 0 || n < 1 {
		t.Errorf("a floor sampler on core %d: %s over %d runs, %v; want a positive duration over 1 or more", core, d, n, err)
	}
	if _, _, err := startFloor([]int{maxCore}, time.Millisecond).end(); err == nil {
		t.Errorf("a floor sampler on core %d: no error", maxCore)
	}
	// The test's own thread is not pinned.
	var after unix.CPUSet
	if err := unix.SchedGetaffinity(0, &after); err != nil || after != set {
		t.Errorf("the test's thread's affinity moved: %v, %v", after, err)
	}
}
