//go:build !linux

package supervisor

import (
	"os"
	"os/exec"
)

// setProcAttr does nothing outside Linux: there is no Pdeathsig. The
// plugin-side parent watchdog in sdk.Serve still ends orphans.
func setProcAttr(*exec.Cmd) {}

// killProcess kills pid with SIGKILL (a stopped process dies too).
func killProcess(pid int) {
	if pid <= 0 {
		return
	}
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
