// Package gcfloor keeps the Go garbage collector from running more often
// than a small heap needs: a heap floor.
//
// With Go's default GOGC=100 the collector runs whenever the heap has grown
// by its live size since the last collection. A server whose live heap is
// small (~7 MiB with 64 accounts under a drop load) but that allocates a
// few KiB per request therefore collects many times a second (~11), and each
// cycle has a fixed cost (marking the roots and every goroutine's stack,
// the background workers, write barriers, assists): in a drop-only load
// profile about 6% of the server's CPU, and a similar share of the bundled
// plugins' and the load tester's. Memory is plentiful at that size; CPU is
// not.
//
// A Floor raises GOGC after each collection so that the next one is due
// when the heap reaches the floor, or twice the live heap (Go's own
// target), whichever is larger: GOGC = max(100, 100 × (floor − live) /
// (live + stacks + globals)), the runtime's own goal formula solved for the
// floor; and at most 100 × floor / 4 MiB, since the runtime never sets a
// goal below 4 MiB × GOGC/100 (its minimum heap).
// Once the live heap passes half the floor, GOGC is the base again, so a
// large server (100,000 accounts, ~250 MiB live) behaves exactly as Go's
// default would, and its peak RSS is unchanged. The soft memory limit
// (server.memory_limit, GOMEMLIMIT) still applies on top: near it the
// collector runs early whatever GOGC says. This is the "GC tuner" of large
// Go deployments (Uber's, ByteDance's gopkg/util/gctuner), without their
// upper bound of the heap, which the memory limit gives here.
//
// One floor runs per process: a Start while another floor runs does
// nothing (the load tester run inside a server's process keeps the
// server's). An operator who sets GOGC in the environment keeps it: Start
// then does nothing either.
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

// minHeap is the runtime's minimum heap goal at GOGC=100 (heapMinimum).
const minHeap = 4 << 20

// The runtime metrics a floor reads after each collection.
var metricNames = []string{
	"/gc/heap/live:bytes",    // live heap as of the last collection
	"/gc/scan/stack:bytes",   // scannable stacks
	"/gc/scan/globals:bytes", // scannable globals
	"/gc/gogc:percent",       // GOGC now
}

// active is set while a Floor runs in this process.
var active atomic.Bool

// Floor adjusts GOGC after every collection; see the package doc.
type Floor struct {
	floor   uint64
	base    int // the GOGC found at Start, restored by Stop
	stopped atomic.Bool
	mu      sync.Mutex // one adjustment at a time
	sample  []metrics.Sample
}

// Start keeps the heap target at least floor bytes and returns the Floor
// (nil when floor is 0, GOGC is set in the environment, or another Floor
// runs). Stop ends it and restores the GOGC it found.
func Start(floor uint64) *Floor {
	if floor == 0 || os.Getenv("GOGC") != "" || !active.CompareAndSwap(false, true) {
		return nil
	}
	f := &Floor{floor: floor}
	for _, n := range metricNames {
		f.sample = append(f.sample, metrics.Sample{Name: n})
	}
	metrics.Read(f.sample)
	f.base = 100
	if v := f.sample[3].Value; v.Kind() == metrics.KindUint64 && v.Uint64() > 0 {
		f.base = int(v.Uint64())
	}
	f.adjust()
	f.arm()
	return f
}

// Stop ends the adjustments and restores GOGC to the base.
func (f *Floor) Stop() {
	if f == nil || f.stopped.Swap(true) {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	debug.SetGCPercent(f.base)
	active.Store(false)
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
	u := func(i int) uint64 {
		if v := f.sample[i].Value; v.Kind() == metrics.KindUint64 {
			return v.Uint64()
		}
		return 0
	}
	p := percentFor(f.floor, u(0), u(1)+u(2), f.base)
	// Setting GOGC recomputes the heap goal under the heap lock: skip
	// changes too small to matter (compared with the runtime's own value).
	if old := int64(u(3)); p == int(old) || (old != 0 && abs(int64(p)-old)*20 < old) {
		return
	}
	debug.SetGCPercent(p)
}

// percentFor is the GOGC that puts the next collection at floor bytes of
// heap, for a live heap of live bytes and roots (scannable stacks and
// globals) of roots bytes: the runtime's goal is live + (live + roots) ×
// GOGC/100, and never below minHeap × GOGC/100. Never below base.
func percentFor(floor, live, roots uint64, base int) int {
	if live >= floor {
		return base
	}
	p := min((floor-live)*100/max(live+roots, 1), floor*100/minHeap, maxPercent)
	return max(int(p), base)
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
