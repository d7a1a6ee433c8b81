//go:build race

package cli_test

// raceDetector is true in a -race build.
const raceDetector = true
