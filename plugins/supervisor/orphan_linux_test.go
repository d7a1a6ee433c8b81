//go:build linux

package supervisor_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/plugins/supervisor"
)

// processGone reports whether pid no longer runs. A zombie counts as gone:
// whoever adopted it may not have reaped it yet.
func processGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// Format: pid (comm) state ...; comm may contain spaces and parens.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z' || s[i+2] == 'X'
}

// runHelper plays a host in the orphan test: it starts a plugin, prints the
// plugin's PID and waits to be killed.
func runHelper(role string) {
	switch role {
	case "host-supervisor":
		// A real host: the supervisor starts the bundled plugin.
		src, opts := bundled("plinko")
		s := supervisor.New(src, opts)
		if err := s.Start(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(s.Status().PID)
	case "host-plain":
		// A host without Pdeathsig: only the plugin's parent watchdog
		// (sdk.Serve) can end the orphan.
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(),
			helperEnv+"=plinko",
			sdk.Handshake.MagicCookieKey+"="+sdk.Handshake.MagicCookieValue,
			fmt.Sprintf("PLUGIN_PROTOCOL_VERSIONS=%d", sdk.ProtocolVersion),
		)
		out, err := cmd.StdoutPipe()
		if err != nil {
			os.Exit(1)
		}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		// Wait for the handshake line: the plugin is serving.
		if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(cmd.Process.Pid)
	default:
		fmt.Fprintf(os.Stderr, "unknown helper role %q\n", role)
		os.Exit(2)
	}
	select {} // until killed
}

// TestHostKilledLeavesNoOrphan kills a host with SIGKILL and checks that
// its plugin goes away too: through Pdeathsig and the watchdog when the
// supervisor started it, through the watchdog alone otherwise.
func TestHostKilledLeavesNoOrphan(t *testing.T) {
	for _, role := range []string{"host-supervisor", "host-plain"} {
		t.Run(role, func(t *testing.T) {
			host := exec.Command(os.Args[0], "-test.run=^$")
			host.Env = append(os.Environ(), helperEnv+"="+role)
			host.Stderr = os.Stderr
			out, err := host.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := host.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = host.Process.Kill(); _ = host.Wait() }()

			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatalf("reading plugin PID from helper host: %v", err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil || pid <= 0 {
				t.Fatalf("helper host printed %q", line)
			}
			if processGone(pid) {
				t.Fatalf("plugin %d not running before the host is killed", pid)
			}

			if err := host.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = host.Wait()
			eventually(t, 3*time.Second, "orphaned plugin exits", func() bool { return processGone(pid) })
		})
	}
}

// processStopped reports whether every thread of pid is stopped (state T).
// kill(SIGSTOP) returns before the threads stop: a thread already running
// may still answer a request, so tests wait for this before relying on it.
func processStopped(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			return false
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || i+2 >= len(s) || (s[i+2] != 'T' && s[i+2] != 't') {
			return false
		}
	}
	return true
}

// setsid starts c in a session (and process group) of its own.
func setsid(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
