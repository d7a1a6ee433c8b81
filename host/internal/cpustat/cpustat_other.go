//go:build !unix

package cpustat

import "time"

// Self is not measured outside Unix systems.
func Self() (time.Duration, bool) { return 0, false }
