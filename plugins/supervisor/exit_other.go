//go:build !linux

package supervisor

// exitWatch: no pidfd outside Linux; the caller polls (nil channel).
func exitWatch(int) (exited <-chan struct{}, stop func()) { return nil, func() {} }
