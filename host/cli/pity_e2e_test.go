package cli_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/plinko"
	"github.com/honmaster/masterserver/plugins/examples/pity"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/plugins/supervisor"
	"github.com/honmaster/masterserver/plugins/supervisor/supervisortest"
	"github.com/honmaster/masterserver/storage"
)

// withPity runs the pity example (this test binary in the pity role) as the
// external plinko plugin, with after = n.
func withPity(n int, dataDir string) func(*config.Config) {
	return func(c *config.Config) {
		unlimitedDrops(c) // one account's drops by the dozen in a moment
		if dataDir != "" {
			c.Storage.DataDir = dataDir
		}
		p := c.Plugins[string(plinkoapi.Area)]
		p.Path, p.Args = os.Args[0], []string{"-test.run=^$"}
		p.Env = []string{pluginRoleEnv + "=pity", "GORACE=atexit_sleep_ms=0"}
		p.StartTimeout = config.Duration{Duration: 30 * time.Second}
		p.Config = map[string]any{"after": int64(n)}
		c.Plugins[string(plinkoapi.Area)] = p
	}
}

// pityState reads the stored pity state of an account.
func pityState(t *testing.T, ts *clitest.Server, id storage.AccountID) pity.State {
	t.Helper()
	b, err := ts.Runtime.App.DB.PluginState(id, string(plinkoapi.Area))
	if err != nil {
		t.Fatal(err)
	}
	st, err := pity.DecodeState(b)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestPityHoldsAcrossRestarts: with after = 2 no account ever sees three
// ticket results in a row, across a kill -9 of the plugin and a restart of
// the host, and the stored state always equals the streak the replies show.
func TestPityHoldsAcrossRestarts(t *testing.T) {
	const after, perPhase = 2, 30
	dir := t.TempDir()
	ts := clitest.Start(t, withPity(after, dir))
	ts.Host(t, "account", "create", "--login", "unlucky", "--password", "pw")
	ts.Host(t, "account", "grant", "--login", "unlucky", "--tickets", "1000000")
	id, err := ts.Runtime.App.DB.LoginID("unlucky")
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := ts.Runtime.App.Plugins.Status(plinkoapi.Area); st.Plugin != pity.Name {
		t.Fatalf("plinko plugin = %+v, want the pity example", st)
	}
	streak, drops := 0, 0
	phase := func(ts *clitest.Server, name string) {
		t.Helper()
		s, err := ts.Client.Login(context.Background(), "unlucky", "pw")
		if err != nil {
			t.Fatal(err)
		}
		for i := range perPhase {
			r, err := drop(context.Background(), ts.Client, s.Cookie)
			if err != nil || !r.ok {
				t.Fatalf("%s drop %d: %+v %v", name, i, r, err)
			}
			drops++
			if r.tier <= plinkoapi.NumChestTiers {
				streak = 0
			} else if streak++; streak > after {
				t.Fatalf("%s drop %d: %d ticket results in a row, pity after %d", name, i, streak, after)
			}
		}
		if st := pityState(t, ts, id); st.Streak != uint64(streak) || st.Drops != uint64(drops) {
			t.Fatalf("%s: stored state %+v, want streak %d drops %d", name, st, streak, drops)
		}
	}
	phase(ts, "first run")

	// kill -9 of the plugin: the host restarts it, the state is the host's.
	old, _ := ts.Runtime.App.Plugins.Status(plinkoapi.Area)
	if err := syscall.Kill(old.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitPlugin(t, ts, func(st supervisor.Status) bool { return st.State == supervisor.StateRunning && st.PID != old.PID })
	phase(ts, "after kill -9 of the plugin")

	// A host restart over the same data.
	if err := ts.Runtime.Stop(); err != nil {
		t.Fatal(err)
	}
	ts = clitest.Start(t, withPity(after, dir))
	phase(ts, "after a host restart")
}

// TestPityConcurrentDrops: 20 concurrent drops on one account are all
// served, and the state advanced once per applied drop.
func TestPityConcurrentDrops(t *testing.T) {
	const n = 20
	ts := clitest.Start(t, withPity(3, ""))
	ts.Host(t, "account", "create", "--login", "crowd", "--password", "pw")
	ts.Host(t, "account", "grant", "--login", "crowd", "--tickets", fmt.Sprint(n*66))
	id, _ := ts.Runtime.App.DB.LoginID("crowd")
	s, err := ts.Client.Login(context.Background(), "crowd", "pw")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]dropResult, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = drop(context.Background(), ts.Client, s.Cookie)
		}()
	}
	wg.Wait()
	for i, r := range results {
		if errs[i] != nil || !r.ok {
			t.Errorf("drop %d: %+v %v", i, r, errs[i])
		}
	}
	if st := pityState(t, ts, id); st.Drops != n || st.Streak > 3 {
		t.Fatalf("state %+v after %d concurrent drops, want drops %d and streak <= 3", st, n, n)
	}
}

func waitPlugin(t *testing.T, ts *clitest.Server, cond func(supervisor.Status) bool) supervisor.Status {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, _ := ts.Runtime.App.Plugins.Status(plinkoapi.Area)
		if cond(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("plugin state not reached: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func healthz(t *testing.T, ts *clitest.Server) (int, string) {
	t.Helper()
	r, err := ts.Client.HTTP.Get(ts.Client.Base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var b strings.Builder
	buf := make([]byte, 256)
	n, _ := r.Body.Read(buf)
	b.Write(buf[:n])
	return r.StatusCode, b.String()
}

// TestHungPluginRestarted stops the plinko plugin with SIGSTOP while drops
// are in flight: the host notices the unanswered ping, /healthz answers 503
// naming plinko, the drops in flight get the decider-unavailable status and
// change nothing, and the plugin is killed and restarted.
//
// The supervisor's pings and restart backoff run on a clock the test steps
// (cli.WithPluginClock), so each step happens when the test says and
// nothing depends on how fast the machine runs: before, the pings ran on
// real time (100 ms apart, 2 s to answer) and the test polled /healthz
// every 5 ms hoping to catch the short window between the hung plugin's
// detection and its restart. On a loaded machine the poll could miss that
// window, the drop goroutines could start only after the restart (so none
// met the stopped plugin), and a healthy plugin slow to answer a ping was
// restarted once more than counted. Likewise the drops are sent only once
// the plugin has stopped (waitStopped), not as soon as kill returns: a
// plugin thread still running could otherwise decide a drop (committed,
// tickets changed) or answer the ping (never found hung).
func TestHungPluginRestarted(t *testing.T) {
	const pingInterval, pingTimeout = time.Second, 2 * time.Second
	clock, frozen := supervisortest.NewManualClock(), supervisortest.NewManualClock() // frozen: the other areas are never pinged
	ts := clitest.StartWith(t, func(c *config.Config) {
		p := c.Plugins[string(plinkoapi.Area)]
		p.PingInterval, p.PingTimeout = config.Duration{Duration: pingInterval}, config.Duration{Duration: pingTimeout}
		c.Plugins[string(plinkoapi.Area)] = p
	}, cli.WithPluginClock(func(area sdk.Area) supervisor.Clock {
		if area == plinkoapi.Area {
			return clock
		}
		return frozen
	}))
	ts.Host(t, "account", "create", "--login", "frozen", "--password", "pw")
	ts.Host(t, "account", "grant", "--login", "frozen", "--tickets", "100000")
	s, err := ts.Client.Login(context.Background(), "frozen", "pw")
	if err != nil {
		t.Fatal(err)
	}
	if code, body := healthz(t, ts); code != http.StatusOK {
		t.Fatalf("healthz before: %d %q", code, body)
	}
	old, _ := ts.Runtime.App.Plugins.Status(plinkoapi.Area)
	clock.Await(t, pingInterval) // the supervisor watches the plugin
	if err := syscall.Kill(old.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitStopped(t, old.PID)
	// Drops in flight against the stopped plugin: they wait for its answer
	// until it is killed below.
	const inFlight = 4
	results := make([]dropResult, inFlight)
	var wg sync.WaitGroup
	for i := range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _ = drop(context.Background(), ts.Client, s.Cookie)
		}()
	}
	clock.Advance(pingInterval) // a ping is due: the stopped plugin does not answer it
	clock.Await(t, pingTimeout)
	clock.Advance(pingTimeout) // the ping failed: the plugin is killed, its restart waits on the clock
	clock.Await(t, 0)
	// Between the kill and the restart: unhealthy, and every drop refused.
	if st, _ := ts.Runtime.App.Plugins.Status(plinkoapi.Area); st.State != supervisor.StateRestarting || st.PID != 0 {
		t.Errorf("status while restarting %+v", st)
	}
	if code, body := healthz(t, ts); code != http.StatusServiceUnavailable || !strings.Contains(body, string(plinkoapi.Area)) {
		t.Errorf("healthz while the plugin is down: %d %q, want 503 naming plinko", code, body)
	}
	wg.Wait()
	for i, r := range results {
		if r.ok {
			t.Errorf("drop %d in flight succeeded: %+v", i, r)
		}
	}
	// A drop now is refused with the decider-unavailable status; the
	// account's changes run in order, so every drop above has run too.
	if code := dropStatus(t, ts, s.Cookie); code != int64(plinko.StatusDeciderUnavailable) {
		t.Errorf("drop while the plugin is down: status_code %d, want %d", code, plinko.StatusDeciderUnavailable)
	}
	acct, _ := ts.Runtime.App.Sys.Account(context.Background(), mustID(t, ts, "frozen"))
	if acct.Tickets != 100000 {
		t.Errorf("tickets %d after the hung plugin, want 100000 (replies: %+v)", acct.Tickets, results)
	}
	clock.Advance(0)             // the restart begins
	clock.Await(t, pingInterval) // the new plugin runs and is watched
	st, _ := ts.Runtime.App.Plugins.Status(plinkoapi.Area)
	if st.State != supervisor.StateRunning || st.PID == old.PID || st.PID == 0 || st.Restarts != 1 || !errors.Is(st.LastError, sdk.ErrUnavailable) {
		t.Errorf("status after restart %+v", st)
	}
	if code, body := healthz(t, ts); code != http.StatusOK {
		t.Errorf("healthz after restart: %d %q", code, body)
	}
	if r, err := drop(context.Background(), ts.Client, s.Cookie); err != nil || !r.ok {
		t.Errorf("drop after restart: %+v %v", r, err)
	}
	if out := ts.Host(t, "plugins"); !strings.Contains(out, "bundled@") || !strings.Contains(out, "ping") {
		t.Errorf("honmaster plugins does not show the plugin and its last error:\n%s", out)
	}
}

// waitStopped returns once the plugin pid, a child of this process, has
// stopped: kill(SIGSTOP) returns as soon as the signal is queued, and until
// every thread of the plugin has taken it, a thread already running (or
// woken by a request) still answers. On a loaded machine that is long
// enough for a drop sent right after the kill to be decided and committed.
// wait4 reports the stop once the whole process has stopped.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, syscall.WUNTRACED, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			t.Fatalf("waiting for plugin %d to stop: %v", pid, err)
		}
		break
	}
	if !ws.Stopped() {
		t.Fatalf("plugin %d did not stop: wait status %#x", pid, ws)
	}
}

// dropStatus sends one drop and returns its status_code.
func dropStatus(t *testing.T, ts *clitest.Server, cookie string) int64 {
	t.Helper()
	r, err := ts.Client.PostForm(context.Background(), "/master/casino/drop/", url.Values{"cookie": {cookie}, "currency": {"tickets"}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.PHP()
	if err != nil {
		t.Fatal(err)
	}
	return num(a, "status_code")
}

func mustID(t *testing.T, ts *clitest.Server, login string) storage.AccountID {
	t.Helper()
	id, err := ts.Runtime.App.DB.LoginID(login)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestPluginStartRefused: a plugin that lacks a decision, serves another
// version, or rejects its configuration stops the server's start with one
// message naming the area and the key.
func TestPluginStartRefused(t *testing.T) {
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	cfg.Server.Listen = "127.0.0.1:0"
	withPity(0, "")(cfg) // after = 0 is rejected
	p := cfg.Plugins[string(plinkoapi.Area)]
	p.Config["colour"] = "red"
	cfg.Plugins[string(plinkoapi.Area)] = p
	rt, err := cliStart(cfg)
	if err == nil {
		rt.Stop()
		t.Fatal("server started with a rejected plugin config")
	}
	for _, want := range []string{"plinko plugin", "plugins.plinko.config.after", "plugins.plinko.config.colour"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if !errors.Is(err, supervisor.ErrConfig) {
		t.Errorf("error %v is not ErrConfig", err)
	}
}

func cliStart(cfg *config.Config) (*cli.Runtime, error) {
	return cli.Start(context.Background(), cfg, slog.New(slog.DiscardHandler), false, io.Discard)
}

// TestEveryAreaHasConfigDefaults: every registered area has its
// [plugins.<area>] defaults, so a newcomer runs it with no file at all.
func TestEveryAreaHasConfigDefaults(t *testing.T) {
	cfg := config.Default()
	for _, area := range sdk.Areas() {
		p, ok := cfg.Plugins[string(area)]
		if !ok || p.StartTimeout.Duration <= 0 || p.CallTimeout.Duration <= 0 || p.PingInterval.Duration <= 0 || p.PingTimeout.Duration <= 0 {
			t.Errorf("area %s: defaults %+v (present %v)", area, p, ok)
		}
	}
}

// TestPluginConfigRefusedExitsTwo: serve with a plugin configuration its
// plugin refuses exits with status 2 (a configuration mistake, as the
// README promises), naming every refused key, without internal names. It
// exited 1.
func TestPluginConfigRefusedExitsTwo(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "pity.toml")
	file := fmt.Sprintf("[plugins.plinko]\npath = %q\nargs = [\"-test.run=^$\"]\nenv = [%q, \"GORACE=atexit_sleep_ms=0\"]\n"+
		"start_timeout = \"30s\"\n[plugins.plinko.config]\nafter = 0\ncolour = \"red\"\n", os.Args[0], pluginRoleEnv+"=pity")
	if err := os.WriteFile(conf, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), []string{"serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0",
		"--operator-listen", "127.0.0.1:0", "--config", conf}, &out, &errOut)
	if code != 2 {
		t.Errorf("exit %d, want 2; stderr %q", code, errOut.String())
	}
	for _, want := range []string{"plinko plugin refused its configuration", "plugins.plinko.config.after", "plugins.plinko.config.colour"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q: %q", want, errOut.String())
		}
	}
	if strings.Contains(errOut.String(), "supervisor") || strings.Contains(errOut.String(), "sdk:") {
		t.Errorf("an internal name reached the operator: %q", errOut.String())
	}
}
