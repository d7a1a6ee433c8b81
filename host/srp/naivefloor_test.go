package srp_test

import (
	"runtime"
	"testing"

	"github.com/honmaster/masterserver/host/srp"
)

// TestNaiveModExpCPU: the floor's modexps take some CPU time on Linux
// (no bound on how much: the machine may be loaded), and fewer than one
// iteration is refused.
func TestNaiveModExpCPU(t *testing.T) {
	if _, err := srp.NaiveModExpCPU(0); err == nil {
		t.Error("NaiveModExpCPU(0): no error")
	}
	d, err := srp.NaiveModExpCPU(2)
	if runtime.GOOS != "linux" {
		if err == nil {
			t.Errorf("NaiveModExpCPU(2) on %s = %s, want an error", runtime.GOOS, d)
		}
		return
	}
	if err != nil || d <= 0 {
		t.Fatalf("NaiveModExpCPU(2) = %s, %v; want a positive duration", d, err)
	}
	t.Logf("three modexps: %s of CPU", d)
}

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
