//go:build unix

package cpustat

import "testing"

// TestSelfGrowsWithWork: the CPU time read grows when the process works
// (bounded: at most a thousand rounds of a million multiplications).
func TestSelfGrowsWithWork(t *testing.T) {
	before, ok := Self()
	if !ok {
		t.Fatal("getrusage could not be read")
	}
	x := uint64(1)
	for range 1000 {
		for i := range 1_000_000 {
			x = x*6364136223846793005 + uint64(i)
		}
		if after, _ := Self(); after > before {
			return
		}
	}
	t.Fatalf("the CPU time read did not grow over a thousand rounds of work (%d)", x)
}
