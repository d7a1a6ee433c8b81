package srp

import "io"

// ThreeModExp is the naive login floor's work (threeModExp), for the
// benchmarks of package srp_test, so that they measure what
// NaiveFloor does.
type ThreeModExp = threeModExp

// NewThreeModExp is newThreeModExp.
func NewThreeModExp(rnd io.Reader) (*ThreeModExp, error) { return newThreeModExp(rnd) }

// Run is run.
func (e *threeModExp) Run() { e.run() }
