// Package supervisortest gives tests of the plugin supervisor, and of the
// host around it, a clock they step by hand.
package supervisortest

import (
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/plugins/supervisor"
)

// ManualClock is a supervisor.Clock that moves only when the test says:
// every timer, a zero-length one included, fires on Advance. A test that
// steps the supervisor's pings and restart backoff with it does not depend
// on how fast the machine runs (a healthy plugin slow to answer a ping on
// a loaded machine is never taken for a hung one).
type ManualClock struct {
	mu      sync.Mutex
	now     time.Duration // since the clock was made
	timers  []manualTimer
	changed chan struct{} // closed (and replaced) when a timer is set
}

var _ supervisor.Clock = (*ManualClock)(nil)

type manualTimer struct {
	at, d time.Duration
	c     chan time.Time
}

// NewManualClock returns a clock at its zero.
func NewManualClock() *ManualClock { return &ManualClock{changed: make(chan struct{})} }

// After implements supervisor.Clock.
func (c *ManualClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.timers = append(c.timers, manualTimer{at: c.now + d, d: d, c: ch})
	close(c.changed)
	c.changed = make(chan struct{})
	return ch
}

// Await returns once a timer of length d is set: the supervisor waits on
// it. The failsafe only ends a test that would otherwise hang.
func (c *ManualClock) Await(t testing.TB, d time.Duration) {
	t.Helper()
	failsafe := time.NewTimer(2 * time.Minute)
	defer failsafe.Stop()
	for {
		c.mu.Lock()
		for _, tm := range c.timers {
			if tm.d == d {
				c.mu.Unlock()
				return
			}
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-failsafe.C:
			t.Fatalf("the supervisor never waited %v", d)
		}
	}
}

// Advance moves the clock by d and fires the timers that are due.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now += d
	kept := c.timers[:0]
	for _, tm := range c.timers {
		if tm.at <= c.now {
			tm.c <- time.Unix(0, 0).Add(tm.at)
		} else {
			kept = append(kept, tm)
		}
	}
	c.timers = kept
}
