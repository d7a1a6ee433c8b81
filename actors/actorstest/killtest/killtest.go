// Package killtest runs a test's child process (the test binary run again)
// until it has acknowledged a number of operations on its standard output,
// then kills it with SIGKILL: the crash half of a kill -9 test, whose
// parent then checks what the data directory holds. It imports nothing of
// the module, so that package actors' own tests can use it too.
package killtest

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Round starts the test binary again running only the test named child
// (a "^Name$" -test.run pattern is made of it), with env added to the
// environment. Every line the child prints is passed to acked; once kill
// lines were acknowledged (acked returned true) the child is killed with
// SIGKILL and waited for. A child that exits before, or acknowledges fewer
// than kill lines within a minute, fails the test with its standard error.
func Round(t testing.TB, child string, env []string, kill int, acked func(line string) bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	seen := make(chan int, 1)
	go func() {
		n := 0
		sc := bufio.NewScanner(out)
		for n < kill && sc.Scan() {
			if acked(sc.Text()) {
				n++
			}
		}
		seen <- n
	}()
	select {
	case n := <-seen:
		if n < kill {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the child stopped after %d acknowledged operations; stderr:\n%s", n, stderr.String())
		}
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("fewer than %d acknowledged operations in a minute; stderr:\n%s", kill, stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}
