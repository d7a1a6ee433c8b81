//go:build linux

package sdk

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestWaitParentExit: the wait ends when the watched process exits, and
// not before; it does not start when the process is no longer the parent.
func TestWaitParentExit(t *testing.T) {
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	pid := cmd.Process.Pid
	done := make(chan bool, 1)
	go func() { done <- waitParentExit(pid, func() int { return pid }) }()
	select {
	case got := <-done:
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the wait ended (%v) while the process ran", got)
	case <-time.After(200 * time.Millisecond):
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	select {
	case got := <-done:
		if !got {
			t.Fatal("the wait for a process that exited returned false, want true")
		}
	case <-time.After(time.Minute):
		t.Fatal("the wait did not end within a minute of the process's exit")
	}
	if waitParentExit(os.Getpid(), func() int { return 1 }) {
		t.Fatal("a wait for a process that is no longer the parent returned true")
	}
}
