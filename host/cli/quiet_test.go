package cli_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/plugins/sdk"
)

// lockedBuffer collects a process's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSIGTERMToGroupIsQuiet: a service manager (or a terminal) stopping the
// server's whole process group gets a clean shutdown: exit 0, no ERROR line
// (the plugin is stopped by the host, not killed by the signal), and each
// start-up fact said once.
func TestSIGTERMToGroupIsQuiet(t *testing.T) {
	bin := buildHost(t)
	data := t.TempDir()
	cmd := exec.Command(bin, "serve", "--data", data, "--listen", "127.0.0.1:0", "--config", loopbackConfig(t))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "listening on ") {
				listening <- sc.Text()
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(30 * time.Second):
		t.Fatalf("server did not start: %s", stderr.String())
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM to the group: %v\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not exit")
	}
	logs := stderr.String()
	if strings.Contains(logs, "level=ERROR") {
		t.Errorf("a normal stop logged an error:\n%s", logs)
	}
	if n := strings.Count(logs, "actor system started"); n > 1 {
		t.Errorf("actor system start logged %d times:\n%s", n, logs)
	}
	// Once per area's plugin.
	if n, areas := strings.Count(logs, "plugin running"), len(sdk.Areas()); n > areas {
		t.Errorf("\"plugin running\" logged %d times for %d areas:\n%s", n, areas, logs)
	}
	if strings.Contains(logs, "plugin started") {
		t.Errorf("plugin start logged twice (supervisor and host):\n%s", logs)
	}
}
