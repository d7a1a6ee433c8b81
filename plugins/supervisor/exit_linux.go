package supervisor

import (
	"sync"

	"golang.org/x/sys/unix"
)

// exitWatch returns a channel closed when process pid exits, without
// polling: a goroutine waits in poll(2) on a pidfd of the process. stop
// ends that wait. A nil channel: the kernel has no pidfd (before Linux
// 5.3) and the caller polls.
func exitWatch(pid int) (exited <-chan struct{}, stop func()) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, func() {}
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		unix.Close(fd)
		return nil, func() {}
	}
	ch := make(chan struct{})
	go func() {
		defer unix.Close(fd)
		defer unix.Close(p[0])
		// stop closes the pipe's write end: its read end turns readable (POLLHUP).
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(p[0]), Events: unix.POLLIN}}
		for {
			_, err := unix.Poll(fds, -1)
			if err == unix.EINTR {
				continue
			}
			if err == nil && fds[0].Revents != 0 {
				close(ch)
			}
			return
		}
	}()
	var once sync.Once
	return ch, func() { once.Do(func() { unix.Close(p[1]) }) }
}
