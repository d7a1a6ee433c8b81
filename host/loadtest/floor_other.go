//go:build !linux

package loadtest

import (
	"errors"
	"time"
)

// floorOn is Linux only (Options.check refuses FloorCores elsewhere).
func floorOn([]int) (time.Duration, error) {
	return 0, errors.New("the naive login floor is measured on Linux only")
}
