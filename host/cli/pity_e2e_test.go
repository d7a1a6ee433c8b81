package cli_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/plugins/examples/pity"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/plugins/supervisor"
	"github.com/honmaster/masterserver/storage"
)

// withPity runs the pity example (this test binary in the pity role) as the
// external plinko plugin, with after = n.
func withPity(n int, dataDir string) func(*config.Config) {
	return func(c *config.Config) {
		if dataDir != "" {
			c.Storage.DataDir = dataDir
		}
		p := c.Plugins[string(sdk.AreaPlinko)]
		p.Path, p.Args = os.Args[0], []string{"-test.run=^$"}
		p.Env = []string{pluginRoleEnv + "=pity", "GORACE=atexit_sleep_ms=0"}
		p.StartTimeout = config.Duration{Duration: 30 * time.Second}
		p.Config = map[string]any{"after": int64(n)}
		c.Plugins[string(sdk.AreaPlinko)] = p
	}
}

// pityState reads the stored pity state of an account.
func pityState(t *testing.T, ts *clitest.Server, id storage.AccountID) pity.State {
	t.Helper()
	b, err := ts.Runtime.App.DB.PluginState(id, string(sdk.AreaPlinko))
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
	if st, _ := ts.Runtime.App.Plugins.Status(sdk.AreaPlinko); st.Plugin != pity.Name {
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
			if r.tier <= sdk.NumChestTiers {
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
	old, _ := ts.Runtime.App.Plugins.Status(sdk.AreaPlinko)
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
		st, _ := ts.Runtime.App.Plugins.Status(sdk.AreaPlinko)
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
// are in flight: the host notices the missed pings, /healthz answers 503
// naming plinko, the drops in flight get the decider-unavailable status and
// change nothing, and the plugin is killed and restarted.
func TestHungPluginRestarted(t *testing.T) {
	ts := clitest.Start(t, func(c *config.Config) {
		p := c.Plugins[string(sdk.AreaPlinko)]
		p.PingInterval, p.PingTimeout = config.Duration{Duration: 100 * time.Millisecond}, config.Duration{Duration: 2 * time.Second}
		p.CallTimeout = config.Duration{Duration: 5 * time.Second}
		c.Plugins[string(sdk.AreaPlinko)] = p
	})
	ts.Host(t, "account", "create", "--login", "frozen", "--password", "pw")
	ts.Host(t, "account", "grant", "--login", "frozen", "--tickets", "100000")
	s, err := ts.Client.Login(context.Background(), "frozen", "pw")
	if err != nil {
		t.Fatal(err)
	}
	if code, body := healthz(t, ts); code != http.StatusOK {
		t.Fatalf("healthz before: %d %q", code, body)
	}
	old, _ := ts.Runtime.App.Plugins.Status(sdk.AreaPlinko)
	if err := syscall.Kill(old.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// Drops in flight against the stopped plugin.
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
	// Unhealthy while it is down (the window lasts until the restart).
	saw503 := false
	deadline := time.Now().Add(30 * time.Second)
	for !saw503 && time.Now().Before(deadline) {
		if st, _ := ts.Runtime.App.Plugins.Status(sdk.AreaPlinko); st.PID != old.PID && st.State == supervisor.StateRunning {
			break
		}
		code, body := healthz(t, ts)
		if code == http.StatusServiceUnavailable {
			saw503 = true
			if !strings.Contains(body, string(sdk.AreaPlinko)) {
				t.Errorf("healthz body %q does not name plinko", body)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	wg.Wait()
	st := waitPlugin(t, ts, func(st supervisor.Status) bool { return st.State == supervisor.StateRunning && st.PID != old.PID })
	if !saw503 {
		t.Error("/healthz never answered 503 while the plugin was hung")
	}
	if st.Restarts != 1 || !errors.Is(st.LastError, sdk.ErrUnavailable) {
		t.Errorf("status after restart %+v", st)
	}
	// A drop sent while the plugin was stopped fails with the area's error and
	// changes nothing. On a loaded machine a goroutine may only send its drop
	// after the restart, and the new plugin then serves it: then the stored
	// balance is the one the last served drop answered. At least one drop
	// must have met the stopped plugin.
	failed, balances := 0, map[int64]bool{}
	for _, r := range results {
		if r.ok {
			balances[r.tickets] = true
		} else {
			failed++
		}
	}
	if failed == 0 {
		t.Error("no drop met the stopped plugin")
	}
	if len(balances) == 0 {
		balances[100000] = true
	}
	acct, _ := ts.Runtime.App.Sys.Account(context.Background(), mustID(t, ts, "frozen"))
	if !balances[acct.Tickets] {
		t.Errorf("tickets %d after the hung plugin, want one of %v (replies: %+v)", acct.Tickets, balances, results)
	}
	if code, body := healthz(t, ts); code != http.StatusOK {
		t.Errorf("healthz after restart: %d %q", code, body)
	}
	if r, err := drop(context.Background(), ts.Client, s.Cookie); err != nil || !r.ok {
		t.Errorf("drop after restart: %+v %v", r, err)
	}
	if out := ts.Host(t, "plugins"); !strings.Contains(out, "bundled@") || !strings.Contains(out, "ping") {
		t.Errorf("host plugins does not show the plugin and its last error:\n%s", out)
	}
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
	p := cfg.Plugins[string(sdk.AreaPlinko)]
	p.Config["colour"] = "red"
	cfg.Plugins[string(sdk.AreaPlinko)] = p
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
