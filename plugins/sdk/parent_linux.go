//go:build linux

package sdk

import "golang.org/x/sys/unix"

// waitParentExit waits, without waking, until process ppid exits: a
// goroutine blocks in poll(2) on a pidfd of it. It returns true then, and
// false at once when the kernel gives no pidfd (before Linux 5.3) or ppid
// is no longer this process's parent (it died before the pidfd was taken,
// which may then name another process): the caller checks getppid
// periodically instead, which also sees the second case, at its first
// check.
func waitParentExit(ppid int, getppid func() int) bool {
	fd, err := unix.PidfdOpen(ppid, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	if getppid() != ppid {
		return false
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if err == unix.EINTR {
			continue
		}
		return err == nil
	}
}
