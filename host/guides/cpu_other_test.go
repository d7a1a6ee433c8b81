//go:build !linux

package guides_test

import "time"

// cpuTime is measured on Linux only.
func cpuTime() (time.Duration, bool) { return 0, false }
