package gcfloor

import (
	"runtime"
	"testing"
	"time"
)

func TestPercentFor(t *testing.T) {
	const MiB = 1 << 20
	for _, c := range []struct {
		floor, live uint64
		want        int
	}{
		{64 * MiB, 8 * MiB, 700},     // next collection at 64 MiB, not 16
		{64 * MiB, 32 * MiB, 100},    // half the floor: Go's own target
		{64 * MiB, 48 * MiB, 100},    // never below the base
		{64 * MiB, 250 * MiB, 100},   // a large heap: unchanged
		{64 * MiB, 1024, maxPercent}, // a tiny heap: bounded
		{64 * MiB, 0, maxPercent},
	} {
		if got := percentFor(c.floor, c.live, 100); got != c.want {
			t.Errorf("percentFor(%d MiB, %d) = %d, want %d", c.floor/MiB, c.live, got, c.want)
		}
	}
}

func TestGOGCFromEnvironmentWins(t *testing.T) {
	t.Setenv("GOGC", "200")
	if f := Start(64 << 20); f != nil {
		f.Stop()
		t.Fatal("Start set a floor although GOGC is set")
	}
}

// waitPercent runs collections until the floor's GOGC satisfies ok
// (finalizers run after a collection, on their own goroutine).
func waitPercent(t *testing.T, f *Floor, what string, ok func(int) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok(f.Percent()) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: GOGC %d", what, f.Percent())
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

var retained []byte

// A small live heap gets a raised GOGC; a live heap past half the floor
// gets the base again; Stop restores it.
func TestFloorFollowsLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	f := Start(256 << 20)
	if f == nil {
		t.Fatal("no floor")
	}
	defer f.Stop()
	waitPercent(t, f, "small live heap", func(p int) bool { return p > 200 })
	retained = make([]byte, 200<<20)
	for i := range retained {
		if i%4096 == 0 {
			retained[i] = 1 // touch: really live
		}
	}
	waitPercent(t, f, "live heap past half the floor", func(p int) bool { return p == 100 })
	retained = nil
	waitPercent(t, f, "small live heap again", func(p int) bool { return p > 200 })
	f.Stop()
	if p := f.Percent(); p != 100 {
		t.Fatalf("after Stop: GOGC %d, want 100", p)
	}
}
