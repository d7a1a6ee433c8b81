//go:build linux

package supervisor

import (
	"os/exec"
	"syscall"
)

// setProcAttr makes the kernel SIGKILL the plugin when the thread that
// started it dies. Launches run on a goroutine locked to its OS thread for
// the supervisor's lifetime (see loop), so that thread is the host for as
// long as the plugin should live.
//
// Setpgid: the plugin leads a process group of its own, which the
// processes it starts join (a wrapper script's child that it did not
// exec, a helper), so that killProcess ends them with it: before, each
// restart left them running. The terminal's SIGINT no longer reaches the
// plugin; go-plugin plugins ignore it anyway, and the host stops them.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// killProcess kills the plugin pid and its process group with SIGKILL (a
// stopped process dies too). The group outlives its leader while any of
// its processes lives, and the kernel gives no new process its id
// meanwhile, so killing it after the plugin was reaped reaches only what
// the plugin left.
func killProcess(pid int) {
	if pid <= 0 {
		return
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL) // in case it left its group
}
