package matches

import (
	"sync/atomic"
	"time"
)

// clock, when set, is the time every Area of this process reads instead
// of the wall clock (SetClock).
var clock atomic.Pointer[func() time.Time]

// SetClock makes every Area of this process that New built without a
// clock of its own (Deps.Now) read the time from now: heartbeats, the
// server list's offline servers, key lifetimes, the area's rate limits and
// its check of a session's expiry. It is the tests' hook (a server's
// heartbeat timeout passes without waiting for it); nil restores the wall
// clock. The login service keeps its own clock.
func SetClock(now func() time.Time) {
	if now == nil {
		clock.Store(nil)
		return
	}
	clock.Store(&now)
}

// clockNow is the time of SetClock's clock, else the wall clock.
func clockNow() time.Time {
	if c := clock.Load(); c != nil {
		return (*c)()
	}
	return time.Now()
}
