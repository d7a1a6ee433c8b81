package cli_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSIGHUPReloadsAndSIGTERMStops: the real binary reloads its
// configuration file on SIGHUP (it used to die of it, leaving admin.sock
// behind) and still stops gracefully on SIGTERM afterwards.
func TestSIGHUPReloadsAndSIGTERMStops(t *testing.T) {
	bin := buildHost(t)
	conf := loopbackConfig(t)
	data := filepath.Join(t.TempDir(), "data")
	cmd := exec.Command(bin, serveArgs(t, data, conf)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "listening on ") {
				close(listening)
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(2 * time.Minute):
		t.Fatalf("server did not start:\n%s", logs.String())
	}
	// waitLog waits (bounded) for the server to log want.
	waitLog := func(want string) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if strings.Contains(logs.String(), want) {
				return
			}
		}
		t.Fatalf("the log never said %q:\n%s", want, logs.String())
	}

	body, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conf, append(body, "[portal]\nregister_enabled = false\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitLog(`msg="configuration reloaded" changed=[portal.register_enabled]`)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGHUP then SIGTERM: %v\n%s", err, logs.String())
	}
	if !strings.Contains(logs.String(), "shutting down") {
		t.Errorf("no graceful shutdown in the log:\n%s", logs.String())
	}
	if _, err := os.Stat(filepath.Join(data, "admin.sock")); !os.IsNotExist(err) {
		t.Errorf("admin.sock left behind (%v)", err)
	}
}
