//go:build !linux

package srp

import (
	"errors"
	"time"
)

// threadCPU is not implemented off Linux.
func threadCPU() (time.Duration, error) {
	return 0, errors.New("srp: a thread's CPU time is read on Linux only")
}
