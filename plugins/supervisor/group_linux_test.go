//go:build linux

package supervisor_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/plugins/supervisor"
)

// TestAPluginsHelpersDieWithIt: a plugin that starts processes of its own
// (an external plugin run by a wrapper script that does not exec, a
// plugin with a helper) left them running after the supervisor replaced
// it, and after the host stopped it: one more leaked process per restart.
// The plugin runs in a process group of its own, and the supervisor kills
// the group. (A note of the previous session: no process group.)
func TestAPluginsHelpersDieWithIt(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "helper.pid")
	src, opts := bundled("childstderr")
	src.Env = append(src.Env, "HELPER_PIDFILE="+pidfile)
	s := supervisor.New(src, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	helpers := func() []int {
		b, _ := os.ReadFile(pidfile)
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	t.Cleanup(func() {
		for _, pid := range helpers() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})

	old := s.Status().PID
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil { // the plugin crashes
		t.Fatal(err)
	}
	eventually(t, time.Minute, "restart", func() bool {
		st := s.Status()
		return st.State == supervisor.StateRunning && st.PID != old && st.PID > 0
	})
	first := helpers()
	if len(first) != 2 {
		t.Fatalf("helpers %v, want one per launch", first)
	}
	eventually(t, time.Minute, "the crashed plugin's helper gone", func() bool { return processGone(first[0]) })

	s.Stop()
	eventually(t, time.Minute, "the stopped plugin's helper gone", func() bool { return processGone(first[1]) })
}
