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
// No Setpgid: the plugin stays in the host's process group, and go-plugin
// plugins ignore the terminal's SIGINT anyway; the host stops them itself.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
