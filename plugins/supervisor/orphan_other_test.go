//go:build !linux

package supervisor_test

import (
	"os/exec"
	"syscall"
	"time"
)

func processGone(pid int) bool { return syscall.Kill(pid, 0) != nil }

func runHelper(string) {}

// processStopped cannot be told without /proc: give the signal a moment.
func processStopped(int) bool { time.Sleep(50 * time.Millisecond); return true }

// setsid: the plugin has no process group of its own outside Linux.
func setsid(*exec.Cmd) {}
