package gcfloor

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

const MiB = 1 << 20

func TestPercentFor(t *testing.T) {
	for _, c := range []struct {
		floor, live, roots uint64
		want               int
	}{
		{64 * MiB, 8 * MiB, 0, 700},          // next collection at 64 MiB, not 16
		{64 * MiB, 8 * MiB, 8 * MiB, 350},    // stacks and globals count in the goal
		{64 * MiB, 32 * MiB, 0, 100},         // half the floor: Go's own target
		{64 * MiB, 48 * MiB, 0, 100},         // never below the base
		{64 * MiB, 250 * MiB, 0, 100},        // a large heap: unchanged
		{64 * MiB, 1024, 0, 1600},            // the runtime's minimum heap stays at the floor
		{64 * MiB, 0, 0, 1600},               // before any collection
		{16 * MiB, 1 * MiB, 0, 400},          // a plugin's floor
		{1024 * MiB, 1 * MiB, 0, maxPercent}, // bounded
	} {
		if got := percentFor(c.floor, c.live, c.roots, 100); got != c.want {
			t.Errorf("percentFor(%d MiB, live %d, roots %d) = %d, want %d", c.floor/MiB, c.live, c.roots, got, c.want)
		}
	}
}

func TestGOGCFromEnvironmentWins(t *testing.T) {
	t.Setenv("GOGC", "200")
	if f := Start(64 * MiB); f != nil {
		f.Stop()
		t.Fatal("Start set a floor although GOGC is set")
	}
}

// read reads one uint64 runtime metric.
func read(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// waitFor runs collections until ok holds (finalizers run after a
// collection, on their own goroutine), bounded.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: GOGC %d, heap goal %d MiB", what, read("/gc/gogc:percent"), read("/gc/heap/goal:bytes")/MiB)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

var retained []byte

// A small live heap gets a raised GOGC whose heap goal is about the floor
// (not above it); a live heap past half the floor gets the base again; a
// second floor does nothing while one runs; Stop restores the GOGC found.
func TestFloorFollowsLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	const floor = 32 * MiB
	f := Start(floor)
	if f == nil {
		t.Fatal("no floor")
	}
	defer f.Stop()
	if g := Start(2 * floor); g != nil {
		g.Stop()
		t.Fatal("a second floor started while one runs")
	}
	gogc := func() int { return int(read("/gc/gogc:percent")) }
	waitFor(t, "small live heap", func() bool { return gogc() > 200 })
	if goal := read("/gc/heap/goal:bytes"); goal > floor*11/10 {
		t.Errorf("heap goal %d MiB with a %d MiB floor", goal/MiB, floor/MiB)
	}
	retained = make([]byte, 20*MiB)
	for i := range retained {
		if i%4096 == 0 {
			retained[i] = 1 // touch: really live
		}
	}
	waitFor(t, "live heap past half the floor", func() bool { return gogc() == 100 })
	retained = nil
	waitFor(t, "small live heap again", func() bool { return gogc() > 200 })
	f.Stop()
	if p := gogc(); p != 100 {
		t.Fatalf("after Stop: GOGC %d, want 100", p)
	}
	if g := Start(floor); g == nil {
		t.Fatal("no floor after the first stopped")
	} else {
		g.Stop()
	}
}
