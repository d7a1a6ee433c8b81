package supervisor_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/plugins/supervisor"
	"github.com/honmaster/masterserver/plugins/supervisor/supervisortest"
)

// bundledStart is the tests' StartTimeout: -race binaries start slowly on
// busy CI.
const bundledStart = 20 * time.Second

// bundled returns a Source and Options that run the test binary as the
// bundled plugin in the given helper role.
func bundled(role string) (supervisor.Source, supervisor.Options) {
	src := supervisor.Source{
		Area: plinkoapi.Area,
		// GORACE: a -race binary otherwise sleeps 1s before exiting.
		Env:          []string{helperEnv + "=" + role, "GORACE=atexit_sleep_ms=0"},
		StartTimeout: bundledStart,
		CallTimeout:  5 * time.Second,
	}
	opts := supervisor.Options{
		Logger:   slog.New(slog.NewTextHandler(testWriter{}, &slog.HandlerOptions{Level: slog.LevelWarn})),
		SelfExe:  os.Args[0],
		SelfArgs: func(sdk.Area) []string { return []string{"-test.run=^$"} },
	}
	return src, opts
}

// testWriter sends logs to stderr, where go test shows them on failure.
type testWriter struct{}

func (testWriter) Write(p []byte) (int, error) { return os.Stderr.Write(p) }

var facts = plinkoapi.DropFacts{AccountID: 1, Currency: plinkoapi.CurrencyTickets, Unowned: [4]int{2, 2, 2, 2}}

// drop asks the supervised plugin for one drop decision.
func drop(s *supervisor.Supervisor, f plinkoapi.DropFacts) (plinkoapi.DropDecision, error) {
	res, err := plinkoapi.Drop.Decide(context.Background(), s, sdk.Call[plinkoapi.DropFacts]{Facts: f})
	return res.Decision, err
}

func startSupervisor(t *testing.T, src supervisor.Source, opts supervisor.Options) *supervisor.Supervisor {
	t.Helper()
	s := supervisor.New(src, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

func startBundled(t *testing.T, role string) *supervisor.Supervisor {
	t.Helper()
	src, opts := bundled(role)
	return startSupervisor(t, src, opts)
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSupervisorRestartsKilledPlugin(t *testing.T) {
	s := startBundled(t, "plinko")
	ctx := context.Background()

	st := s.Status()
	if st.State != supervisor.StateRunning || st.PID <= 0 || st.Restarts != 0 || st.Source != "bundled" ||
		st.ProtocolVersion != sdk.ProtocolVersion || st.Area != plinkoapi.Area || !s.Ready() ||
		st.Plugin != "bundled" || st.PluginVersion == "" {
		t.Fatalf("Status after Start = %+v, Ready = %v", st, s.Ready())
	}
	if _, err := drop(s, facts); err != nil {
		t.Fatalf("Drop: %v", err)
	}

	pids := []int{st.PID}
	for round := 1; round <= 2; round++ {
		old := s.Status().PID
		if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		if _, err := drop(s, facts); !errors.Is(err, sdk.ErrUnavailable) {
			t.Fatalf("round %d: Drop right after SIGKILL: err = %v, want ErrUnavailable", round, err)
		}
		// The relaunch waits the backoff (100 ms), then starts a -race
		// binary: up to a second on a loaded machine, so the bound is the
		// start's own (StartTimeout) rather than a guess at its speed.
		eventually(t, bundledStart+time.Second, "plugin back after SIGKILL", func() bool {
			_, err := drop(s, facts)
			if err != nil && !errors.Is(err, sdk.ErrUnavailable) {
				t.Fatalf("round %d: Drop while restarting: err = %v, want ErrUnavailable", round, err)
			}
			return err == nil
		})
		t.Logf("round %d: back after %v", round, time.Since(killed))
		st := s.Status()
		if st.Restarts != round || st.State != supervisor.StateRunning || st.PID == old || st.PID <= 0 {
			t.Fatalf("round %d: Status = %+v, want running, %d restarts, new PID", round, st, round)
		}
		if !errors.Is(st.LastError, sdk.ErrUnavailable) {
			t.Errorf("round %d: LastError = %v, want the exit", round, st.LastError)
		}
		pids = append(pids, st.PID)
	}

	s.Stop()
	if st := s.Status(); st.State != supervisor.StateStopped || st.PID != 0 || s.Ready() {
		t.Fatalf("Status after Stop = %+v", st)
	}
	if _, err := drop(s, facts); !errors.Is(err, sdk.ErrUnavailable) || !errors.Is(err, sdk.ErrNotRunning) {
		t.Fatalf("Drop after Stop: err = %v, want ErrUnavailable and ErrNotRunning (nothing was asked)", err)
	}
	for _, pid := range pids {
		eventually(t, 5*time.Second, "plugin process gone", func() bool { return processGone(pid) })
	}
	s.Stop() // idempotent
	if err := s.Start(ctx); err == nil {
		t.Fatal("Start after Stop succeeded")
	}
}

func TestSupervisorStartFailures(t *testing.T) {
	tests := []struct {
		name   string
		role   string
		path   string
		config map[string]any
		want   error  // errors.Is must hold when set
		key    string // the message must name it
	}{
		{name: "plugin exits at start", role: "crash"},
		{name: "plugin rejects its config (invalid odds)", role: "badodds", want: supervisor.ErrConfig, key: "plugins.plinko.config.odds"},
		{name: "plugin lacks the decision", role: "nodecision", want: supervisor.ErrContract, key: "plinko.drop"},
		{name: "plugin rejects a config key", role: "plinko", config: map[string]any{"colour": "red"}, want: supervisor.ErrConfig, key: "plugins.plinko.config.colour"},
		{name: "external binary missing", path: filepath.Join(t.TempDir(), "no-such-plugin")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, opts := bundled(tt.role)
			src.Path, src.Config = tt.path, tt.config
			opts.Logger = nil
			s := supervisor.New(src, opts)
			defer s.Stop()
			err := s.Start(context.Background())
			if err == nil {
				t.Fatal("Start succeeded")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.key) || !strings.Contains(err.Error(), "plinko plugin") {
				t.Errorf("err = %q, want it to name the area and %q", err, tt.key)
			}
			st := s.Status()
			if st.State != supervisor.StateFailed || st.LastError == nil || st.PID != 0 || s.Ready() {
				t.Fatalf("Status = %+v", st)
			}
			if _, err := drop(s, facts); !errors.Is(err, sdk.ErrUnavailable) {
				t.Fatalf("Drop after failed Start: err = %v, want ErrUnavailable", err)
			}
		})
	}
}

func TestSupervisorHandleValidates(t *testing.T) {
	s := startBundled(t, "plinko")
	_, err := drop(s, plinkoapi.DropFacts{Currency: "silver"})
	if !errors.Is(err, sdk.ErrInvalidFacts) {
		t.Fatalf("Drop with bad currency: err = %v, want ErrInvalidFacts", err)
	}
	for range 100 {
		d, err := drop(s, facts)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Validate(facts); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSupervisorStartContextCanceled(t *testing.T) {
	src, opts := bundled("plinko")
	s := supervisor.New(src, opts)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Start(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Start with canceled ctx: err = %v", err)
	}
	if st := s.Status(); st.State != supervisor.StateFailed || st.PID != 0 {
		t.Fatalf("Status = %+v", st)
	}
	s.Stop()
}

func TestSupervisorExternalCustomOdds(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: builds the customodds example with the go tool")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipping: the go tool is not available to build the customodds example")
	}
	bin := filepath.Join(t.TempDir(), "customodds")
	build := exec.Command(gobin, "build", "-o", bin, "github.com/honmaster/masterserver/plugins/examples/customodds")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build customodds: %v\n%s", err, out)
	}

	src, opts := bundled("")
	src.Path = bin
	s := startSupervisor(t, src, opts)
	if st := s.Status(); st.Source != bin || st.State != supervisor.StateRunning {
		t.Fatalf("Status = %+v", st)
	}
	if st := s.Status(); st.Plugin != "customodds" || st.PluginVersion != "1.0.0" {
		t.Fatalf("Status = %+v, want plugin customodds 1.0.0", st)
	}
	if _, err := drop(s, facts); err != nil {
		t.Fatal(err)
	}
}

// TestSupervisorRestartsHungPlugin stops the plugin with SIGSTOP: it no
// longer answers pings, so it is killed and restarted; calls meanwhile fail
// with ErrUnavailable.
//
// The pings and the restart's backoff run on a clock the test steps
// (supervisortest.ManualClock), as TestHungPluginRestarted in host/cli
// does: on real time (a ping every 50 ms, 300 ms to answer) a healthy
// -race plugin slow to answer one ping on a loaded machine was restarted
// once more than the test counted.
func TestSupervisorRestartsHungPlugin(t *testing.T) {
	const pingInterval, pingTimeout = time.Second, 2 * time.Second
	clock := supervisortest.NewManualClock()
	src, opts := bundled("plinko")
	src.PingInterval, src.PingTimeout = pingInterval, pingTimeout
	// CallTimeout stays bundled's 5 s, in real time: the call to the
	// stopped plugin waits that long, and the first call to the restarted
	// -race plugin gets that long on a loaded machine.
	opts.Clock = clock
	s := startSupervisor(t, src, opts)
	old := s.Status().PID
	clock.Await(t, pingInterval) // the supervisor watches the plugin
	if err := syscall.Kill(old, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "plugin stopped", func() bool { return processStopped(old) })
	if _, err := drop(s, facts); !errors.Is(err, sdk.ErrUnavailable) {
		t.Fatalf("drop on a stopped plugin: err = %v, want ErrUnavailable", err)
	}
	clock.Advance(pingInterval) // a ping is due: the stopped plugin does not answer it
	clock.Await(t, pingTimeout)
	clock.Advance(pingTimeout) // the ping failed: the plugin is killed, its restart waits on the clock
	clock.Await(t, 0)
	if st := s.Status(); st.State != supervisor.StateRestarting {
		t.Errorf("Status between the kill and the restart = %+v, want restarting", st)
	}
	clock.Advance(0)             // the restart begins
	clock.Await(t, pingInterval) // the new plugin runs and is watched
	st := s.Status()
	if st.Restarts != 1 || st.State != supervisor.StateRunning || st.PID == old || st.PID <= 0 {
		t.Fatalf("Status after the restart = %+v, want running, 1 restart, new PID", st)
	}
	if !errors.Is(st.LastError, sdk.ErrUnavailable) || !strings.Contains(st.LastError.Error(), "ping") {
		t.Errorf("LastError = %v, want the missed ping", st.LastError)
	}
	if _, err := drop(s, facts); err != nil {
		t.Fatalf("drop after restart: %v", err)
	}
	eventually(t, 5*time.Second, "stopped plugin killed", func() bool { return processGone(old) })
}

// TestSupervisorStopsHungPlugin: Stop returns even when the plugin is hung
// (go-plugin's polite shutdown is never answered), and the process is gone.
func TestSupervisorStopsHungPlugin(t *testing.T) {
	src, opts := bundled("plinko")
	src.PingInterval = time.Hour // the ping would replace it first otherwise
	s := startSupervisor(t, src, opts)
	pid := s.Status().PID
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		s.Stop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Stop did not return for a hung plugin")
	}
	eventually(t, 5*time.Second, "hung plugin gone", func() bool { return processGone(pid) })
}

// TestSupervisorRestartsAPluginThatAnswersNoDecision: a plugin whose
// decision handler is stuck while its gRPC server answers pings is taken
// for hung once its decisions go unanswered for two call periods, and is
// restarted (and not ready meanwhile, so /healthz tells). Before, the pings
// kept it running and ready for good while every decision timed out.
func TestSupervisorRestartsAPluginThatAnswersNoDecision(t *testing.T) {
	src, opts := bundled("hangdecide")
	src.CallTimeout = 300 * time.Millisecond
	src.PingInterval = time.Hour // only the decisions can tell
	s := startSupervisor(t, src, opts)
	old := s.Status().PID
	deadline := time.Now().Add(time.Minute)
	for s.Status().Restarts == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("a plugin answering no decision was not restarted in a minute: %+v", s.Status())
		}
		if _, err := drop(s, facts); err == nil {
			t.Fatal("a stuck plugin answered a decision")
		}
	}
	st := s.Status()
	if st.PID == old || !errors.Is(st.LastError, sdk.ErrUnavailable) || !strings.Contains(st.LastError.Error(), "decisions unanswered") {
		t.Fatalf("after the restart: %+v, want a new PID and the unanswered decisions as the last error", st)
	}
	eventually(t, 10*time.Second, "stuck plugin killed", func() bool { return processGone(old) })
}

// TestSupervisorRefusesAGiantReply: a plugin's reply is read only up to
// what a batch of decisions may hold. Before, go-plugin's 2 GiB limit
// applied: a 70 MiB state was read whole before the state's own bound
// refused it.
func TestSupervisorRefusesAGiantReply(t *testing.T) {
	s := startBundled(t, "giantreply")
	_, err := drop(s, facts)
	if !errors.Is(err, sdk.ErrPluginFailed) || !strings.Contains(err.Error(), "larger than max") {
		t.Fatalf("a 70 MiB reply: %v, want the plugin's failure: a message larger than the limit", err)
	}
}

// TestSupervisorGoesOnWhenAnotherProcessHoldsThePluginsOutput: a plugin
// that started a helper holding its stderr open is killed; go-plugin's
// Kill waits until every holder of the plugin's output closed it. Before,
// the supervisor waited with it: no restart, and Stop (the host's
// shutdown) never returned, until the helper exited. The helper runs in a
// session of its own, out of the plugin's process group that the
// supervisor kills (TestAPluginsHelpersDieWithIt).
func TestSupervisorGoesOnWhenAnotherProcessHoldsThePluginsOutput(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "helper.pid")
	src, opts := bundled("childstderr")
	src.Env = append(src.Env, "HELPER_PIDFILE="+pidfile, "HELPER_OWN_SESSION=1")
	s := supervisor.New(src, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The helpers (one per launch) would otherwise sleep on.
		b, _ := os.ReadFile(pidfile)
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	old := s.Status().PID
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "restart while the helper holds the old plugin's stderr", func() bool {
		st := s.Status()
		return st.State == supervisor.StateRunning && st.PID != old && st.PID > 0
	})
	stopped := make(chan struct{})
	go func() { s.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("Stop did not return while a helper holds the plugin's stderr")
	}
}
