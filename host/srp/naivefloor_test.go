package srp_test

import (
	"runtime"
	"testing"

	"github.com/honmaster/masterserver/host/srp"
)

// TestNaiveFloor: a NaiveFloor measures again and again, and refuses
// fewer than one iteration.
func TestNaiveFloor(t *testing.T) {
	f, err := srp.NewNaiveFloor()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.CPU(0); err == nil {
		t.Error("CPU(0): no error")
	}
	for i := range 2 {
		d, err := f.CPU(1)
		if runtime.GOOS != "linux" {
			if err == nil {
				t.Errorf("CPU(1) on %s = %s, want an error", runtime.GOOS, d)
			}
			return
		}
		if err != nil || d <= 0 {
			t.Fatalf("CPU(1), measurement %d = %s, %v; want a positive duration", i+1, d, err)
		}
	}
}
