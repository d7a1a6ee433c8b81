// Package gcfloor keeps the Go garbage collector from running more often
// than a small heap needs: a heap floor.
//
// With Go's default GOGC=100 the collector runs whenever the heap has grown
// by its live size since the last collection. A server whose live heap is
// small (a few hundred accounts logged in: 10–30 MiB) but that allocates a
// few KiB per request therefore collects many times a second, and each
// cycle has a fixed cost (marking the roots and every goroutine's stack,
// the background workers, write barriers, assists): in a drop-only load
// profile about 6% of the server's CPU, and a similar share of the bundled
// plugins' and the load tester's. Memory is plentiful at that size; CPU is
// not.
//
// A Floor raises GOGC after each collection so that the next one is due
// when the heap reaches the floor, or twice the live heap (Go's own
// target), whichever is larger: GOGC = max(base, (floor - live) / live).
// Once the live heap passes half the floor, GOGC is the base again, so a
// large server (100,000 accounts, ~250 MiB live) behaves exactly as Go's
// default would, and its peak RSS is unchanged. The soft memory limit
// (server.memory_limit, GOMEMLIMIT) still applies on top: near it the
// collector runs early whatever GOGC says. This is the "GC tuner" of large
// Go deployments (Uber's, ByteDance's gopkg/util/gctuner), without their
// upper bound of the heap, which the memory limit gives here.
//
// An operator who sets GOGC in the environment keeps it: Start then does
// nothing.
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// maxPercent bounds the GOGC a floor sets (a live heap of a few hundred
// KiB would otherwise ask for tens of thousands).
const maxPercent = 5000

// liveMetric is the live heap as of the last collection.
const liveMetric = "/gc/heap/live:bytes"

// Floor adjusts GOGC after every collection; see the package doc.
type Floor struct {
	floor   uint64
	base    int
	stopped atomic.Bool
	percent atomic.Int64 // last GOGC set (for tests and logs)
	mu      sync.Mutex   // one adjustment at a time
	sample  []metrics.Sample
}

// Start keeps the heap target at least floor bytes and returns the Floor
// (nil when floor is 0 or GOGC is set in the environment). Stop ends it and
// restores the base GOGC (100).
func Start(floor uint64) *Floor {
	if floor == 0 || os.Getenv("GOGC") != "" {
		return nil
	}
	f := &Floor{floor: floor, base: 100, sample: []metrics.Sample{{Name: liveMetric}}}
	f.percent.Store(int64(f.base))
	f.adjust()
	f.arm()
	return f
}

// Percent is the GOGC the floor set last.
func (f *Floor) Percent() int {
	if f == nil {
		return 100
	}
	return int(f.percent.Load())
}

// Stop ends the adjustments and restores GOGC to the base.
func (f *Floor) Stop() {
	if f == nil || f.stopped.Swap(true) {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	debug.SetGCPercent(f.base)
	f.percent.Store(int64(f.base))
}

// sentinel is garbage as soon as it is made: its finalizer runs after the
// next collection, adjusts GOGC, and makes the next sentinel.
type sentinel struct{ f *Floor }

func (f *Floor) arm() {
	s := &sentinel{f: f}
	runtime.SetFinalizer(s, func(s *sentinel) {
		if s.f.stopped.Load() {
			return
		}
		s.f.adjust()
		s.f.arm()
	})
}

// adjust sets GOGC from the live heap of the last collection.
func (f *Floor) adjust() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped.Load() {
		return
	}
	metrics.Read(f.sample)
	var live uint64
	if f.sample[0].Value.Kind() == metrics.KindUint64 {
		live = f.sample[0].Value.Uint64()
	}
	p := percentFor(f.floor, live, f.base)
	// Setting GOGC recomputes the heap goal under the heap lock: skip
	// changes too small to matter.
	if old := f.percent.Load(); p == int(old) || (old != 0 && abs(int64(p)-old)*20 < old) {
		return
	}
	debug.SetGCPercent(p)
	f.percent.Store(int64(p))
}

// percentFor is the GOGC that puts the next collection at floor bytes of
// heap for a live heap of live bytes, and never below base.
func percentFor(floor, live uint64, base int) int {
	if live == 0 {
		live = 1
	}
	if live >= floor {
		return base
	}
	p := (floor - live) * 100 / live
	if p > maxPercent {
		p = maxPercent
	}
	return max(int(p), base)
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
