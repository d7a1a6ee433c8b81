package loadtest

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestFloorOn: the floor's modexps run on a thread pinned to a core this
// process may use and take some CPU time (no bound on how much: the
// machine may be loaded); a core outside the machine is refused.
func TestFloorOn(t *testing.T) {
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
	if d, err := floorOn([]int{core}); err != nil || d <= 0 {
		t.Errorf("floorOn([%d]) = %s, %v; want a positive duration", core, d, err)
	}
	if _, err := floorOn([]int{maxCore}); err == nil {
		t.Errorf("floorOn([%d]): no error", maxCore)
	}
	// The test's own thread is not pinned.
	var after unix.CPUSet
	if err := unix.SchedGetaffinity(0, &after); err != nil || after != set {
		t.Errorf("the test's thread's affinity moved: %v, %v", after, err)
	}
}
