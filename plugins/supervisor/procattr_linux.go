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
// Setpgid: the plugin runs in its own process group, so a signal sent to
// the host's group (Ctrl-C in a terminal, "timeout", a service manager
// stopping the group) reaches only the host, which stops its plugins itself
// in order during its graceful shutdown; a plugin killed by that signal
// first would be logged as a failure. Should the host die instead,
// Pdeathsig ends the plugin.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}
