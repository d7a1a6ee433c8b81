package supervisor

import (
	"os/exec"
	"testing"
	"time"
)

// TestExitWatchSeesAnExit: exitWatch's channel closes when the process
// exits (here killed and reaped), and not before; stop may come after.
func TestExitWatchSeesAnExit(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	exited, stop := exitWatch(cmd.Process.Pid)
	defer stop()
	if exited == nil {
		t.Skip("no pidfd on this kernel")
	}
	select {
	case <-exited:
		t.Fatal("the watch says the process exited while it runs")
	case <-time.After(50 * time.Millisecond):
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	select {
	case <-exited:
	case <-time.After(time.Minute):
		t.Fatal("the process's exit was not seen within a minute")
	}
}
