//go:build !race

package matchsim_test

// raceDetector: this test binary was built with -race.
const raceDetector = false
