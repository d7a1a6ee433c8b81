//go:build race

package wire

// raceDetector is true in a -race build, where sync.Pool drops items at
// random (to expose misuse), so allocation counts are not the program's.
const raceDetector = true
