//go:build unix

package cpustat

import (
	"syscall"
	"time"
)

// Self is the CPU time (user and system) this process has used so far,
// from getrusage; false when it cannot be read.
func Self() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
