//go:build !linux

package supervisor

import "os/exec"

// setProcAttr does nothing outside Linux: there is no Pdeathsig. The
// plugin-side parent watchdog in sdk.Serve still ends orphans.
func setProcAttr(*exec.Cmd) {}
