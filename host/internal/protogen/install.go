package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// install puts every pinned tool that is missing, or at another version,
// in place: protoc from its Debian package (apt-get, as root or through
// sudo), the Go generators with go install at their pins, into bin (""
// : go install's own, $(go env GOPATH)/bin, which generation searches
// too). A tool already at its pin is left as it is, so a second run does
// nothing.
func install(bin string, out io.Writer) error {
	if bin != "" {
		abs, err := filepath.Abs(bin)
		if err != nil {
			return err
		}
		bin = abs
	}
	// check is t.check, except that a generator asked into bin must be
	// there: another copy on PATH is not the one the caller will use.
	check := func(t tool) string {
		if bin != "" && t.goPkg != "" {
			return t.checkAt(filepath.Join(bin, t.name))
		}
		return t.check()
	}
	for _, t := range pins {
		if check(t) == "" {
			fmt.Fprintf(out, "%s %s: installed\n", t.name, t.version)
			continue
		}
		var cmd *exec.Cmd
		switch {
		case t.goPkg != "":
			cmd = exec.Command("go", "install", t.goPkg)
			cmd.Env = append(os.Environ(), "GOFLAGS=")
			if bin != "" {
				cmd.Env = append(cmd.Env, "GOBIN="+bin)
			}
		case os.Geteuid() == 0:
			cmd = exec.Command("sh", "-c", "apt-get update -qq && apt-get install -y -qq --no-install-recommends "+t.aptPkg)
		default:
			cmd = exec.Command("sudo", "sh", "-c", "apt-get update -qq && apt-get install -y -qq --no-install-recommends "+t.aptPkg)
		}
		cmd.Env = append(cmd.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = out, out
		fmt.Fprintf(out, "%s %s: %s\n", t.name, t.version, cmd.String())
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("installing %s: %w", t.name, err)
		}
		if p := check(t); p != "" {
			return fmt.Errorf("%w: after installing: %s", errTools, p)
		}
	}
	return nil
}
