//go:build !linux

package loadtest

import (
	"errors"
	"time"
)

// floorSampler is Linux only (Options.check refuses FloorCores elsewhere).
type floorSampler struct{}

func startFloor([]int, time.Duration) *floorSampler { return &floorSampler{} }

func (*floorSampler) end() (time.Duration, int, error) {
	return 0, 0, errors.New("the naive login floor is measured on Linux only")
}
