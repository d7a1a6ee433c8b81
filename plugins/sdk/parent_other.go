//go:build !linux

package sdk

// waitParentExit is false outside Linux (no pidfd): the caller checks
// getppid periodically.
func waitParentExit(int, func() int) bool { return false }
