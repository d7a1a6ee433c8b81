package cli_test

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/storage/storagetest"
)

// hostBin is the host binary the tests of this package run as a separate
// process: built once per test binary (a link of the whole host takes
// seconds, and eight tests need it), into dir, removed by TestMain.
var hostBin struct {
	once      sync.Once
	dir, path string
	err       error
}

// buildHost builds the host binary (once for all the tests) and returns its
// path. The tests start it with data directories of their own.
func buildHost(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the host binary; skipped with -short")
	}
	if raceDetector {
		// The server under test is a separate process, built without the
		// race detector: a -race run of this test checks only its client
		// side, and costs CI minutes. The plain pass runs it.
		t.Skip("runs the host binary as a separate process (not built with -race); the plain test pass runs it")
	}
	goBin := goTool(t)
	hostBin.once.Do(func() {
		if hostBin.dir, hostBin.err = os.MkdirTemp("", "honmaster-cli-test-"); hostBin.err != nil {
			return
		}
		path := filepath.Join(hostBin.dir, "host")
		if hostBin.err = goCommand(goBin, "build", "-o", path, "github.com/honmaster/masterserver/host"); hostBin.err == nil {
			hostBin.path = path
		}
	})
	if hostBin.err != nil {
		t.Fatal(hostBin.err)
	}
	return hostBin.path
}

// removeHostBin removes the binary buildHost built, if it did.
func removeHostBin() {
	if hostBin.dir != "" {
		os.RemoveAll(hostBin.dir)
	}
}

// loopbackConfig writes a configuration file that puts the operator
// listener on a free loopback port: the default port may be taken by
// another server on the machine (another test binary, a developer's).
// extra is appended (more tables, such as a storage backend's).
func loopbackConfig(t *testing.T, extra ...string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "loopback.toml")
	// The tests act as many players from 127.0.0.1: the per-address
	// budgets are off, as for a load test (defaults.toml, [limits];
	// bench/loadtest.toml, [plinko]).
	conf := "[operator]\nlisten = \"127.0.0.1:0\"\n" +
		"[limits]\nregistrations_per_address = { burst = 1000000, every = \"1ms\" }\nlogins_per_address = { burst = 0, every = \"1h\" }\n" +
		"toggles_per_account = { burst = 0, every = \"1h\" }\ntoggles_per_address = { burst = 0, every = \"1h\" }\n" +
		"cloud_bytes_per_address = { size = 0, every = \"24h\" }\nreports_per_address = { burst = 0, every = \"1h\" }\n" +
		"guide_votes_per_address = { burst = 0, every = \"1h\" }\nguide_votes_per_guide_address = { burst = 0, every = \"1h\" }\n" +
		"max_connections_per_address = 10000\n" +
		"[plinko]\nwrite_burst = 0\n"
	if err := os.WriteFile(file, []byte(conf+strings.Join(extra, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func runGo(t *testing.T, args ...string) {
	t.Helper()
	if err := goCommand(goTool(t), args...); err != nil {
		t.Fatal(err)
	}
}

// goTool returns the go command's path, or skips the test without one.
func goTool(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	return goBin
}

// goCommand runs the go command; its error carries the command's output.
func goCommand(goBin string, args ...string) error {
	if out, err := exec.Command(goBin, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

func runHost(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("host %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// serveArgs are the arguments of a test's "serve" on data: free ports for
// both listeners, so that a server running on the machine's default ports
// (8080, 8081) does not stop the test.
func serveArgs(t *testing.T, data string, conf ...string) []string {
	t.Helper()
	if len(conf) == 0 {
		conf = []string{loopbackConfig(t)}
	}
	return []string{"serve", "--config", conf[0], "--data", data, "--listen", "127.0.0.1:0"}
}

// hostBackends runs fn once per storage backend, with the configuration
// file the host's commands are to take: free loopback ports, and on
// PostgreSQL a fresh database of the test's own (the subtest skips
// without HONMASTER_TEST_POSTGRES_URL).
func hostBackends(t *testing.T, fn func(t *testing.T, conf string)) {
	t.Run("pebble", func(t *testing.T) { fn(t, loopbackConfig(t)) })
	t.Run("postgres", func(t *testing.T) {
		url := storagetest.PostgresURL(t)
		fn(t, loopbackConfig(t, fmt.Sprintf("[storage]\nbackend = \"postgres\"\n[storage.postgres]\nurl = %q\n", url)))
	})
}

// startHost starts "host serve" (with the configuration file conf, if
// given) and waits until /healthz answers 200.
func startHost(t *testing.T, bin, data string, conf ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd, addr, _ := startHostOperator(t, bin, data, conf...)
	return cmd, addr
}

// startHostOperator is startHost that also returns the operator listener's
// address ("" when it is off).
func startHostOperator(t *testing.T, bin, data string, conf ...string) (*exec.Cmd, string, string) {
	t.Helper()
	cmd := exec.Command(bin, serveArgs(t, data, conf...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := make(chan string, 1)
	var opAddr string
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "operator listener on "); ok {
				opAddr, _, _ = strings.Cut(a, " ")
			}
			if a, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				addr <- a
			}
		}
	}()
	select {
	case a := <-addr:
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if r, err := http.Get("http://" + a + "/healthz"); err == nil {
				r.Body.Close()
				if r.StatusCode == 200 {
					return cmd, a, opAddr
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatal("server never became healthy")
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start")
	}
	return nil, "", ""
}

func alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

// TestKill9KeepsAcknowledgedWrites grants through the running server (admin
// socket -> actor -> synced commit -> reply), kills the server with SIGKILL,
// and checks that every acknowledged grant is on disk and that the plugin
// subprocess did not outlive the host.
func TestKill9KeepsAcknowledgedWrites(t *testing.T) {
	hostBackends(t, kill9KeepsAcknowledgedWrites)
}

func kill9KeepsAcknowledgedWrites(t *testing.T, conf string) {
	bin := buildHost(t)
	data := t.TempDir()
	cmd, _ := startHost(t, bin, data, conf)
	runHost(t, bin, "account", "create", "--data", data, "--config", conf, "--login", "dur", "--password", "pw")
	const grants = 25
	for i := 0; i < grants; i++ {
		out := runHost(t, bin, "account", "grant", "--data", data, "--config", conf, "--login", "dur", "--tickets", "3",
			"--upgrade", fmt.Sprintf("aa.Hero_Test.Alt%d", i))
		if !strings.Contains(out, fmt.Sprintf("tickets %d", 3*(i+1))) {
			t.Fatalf("grant %d answered %q", i, out)
		}
	}
	plugins := runHost(t, bin, "plugins", "--data", data)
	var pluginPID int
	for _, line := range strings.Split(plugins, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "plinko" {
			pluginPID, _ = strconv.Atoi(f[2])
		}
	}
	if pluginPID <= 0 || !alive(pluginPID) {
		t.Fatalf("no live plinko plugin in:\n%s", plugins)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	deadline := time.Now().Add(30 * time.Second) // a bound for a stalled machine
	for alive(pluginPID) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pluginPID) {
		syscall.Kill(pluginPID, syscall.SIGKILL)
		t.Errorf("plugin %d outlived the killed host", pluginPID)
	}

	// The server is gone: the command opens the data directory itself.
	out := runHost(t, bin, "account", "show", "--data", data, "--config", conf, "--login", "dur")
	if !strings.Contains(out, fmt.Sprintf("tickets %d", 3*grants)) || !strings.Contains(out, fmt.Sprintf("upgrades %d:", grants)) {
		t.Errorf("after kill -9:\n%s", out)
	}
	if !bytes.Contains([]byte(out), []byte("aa.Hero_Test.Alt24")) {
		t.Errorf("last acknowledged upgrade missing:\n%s", out)
	}
}
