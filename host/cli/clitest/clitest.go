// Package clitest provides a real server for end-to-end tests of the host and
// its areas: started on a loopback port over a temporary data directory, with
// operator commands run through the same code path as the command line.
package clitest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/plinko"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// Server is a started server and a client of it.
type Server struct {
	Runtime *cli.Runtime
	Config  *config.Config
	Client  *client.Client
	DataDir string

	configFile string // the storage settings for offline commands; "" on Pebble
}

// Start starts a server with the default configuration, changed by mutate,
// and stops it when the test ends.
func Start(t testing.TB, mutate func(*config.Config)) *Server {
	t.Helper()
	return start(t, mutate, false)
}

// StartDemo is Start with the demo seed of "serve --demo".
func StartDemo(t testing.TB, mutate func(*config.Config)) *Server {
	t.Helper()
	return start(t, mutate, true)
}

// StartWith is Start with options of cli.Start (a plugin clock).
func StartWith(t testing.TB, mutate func(*config.Config), opts ...cli.StartOption) *Server {
	t.Helper()
	return start(t, mutate, false, opts...)
}

// EnvBackend names the environment variable that runs every server and
// App of these helpers on another storage backend: "postgres" puts each
// on a fresh PostgreSQL database of its test's own (at
// HONMASTER_TEST_POSTGRES_URL), so a whole end-to-end suite runs on
// PostgreSQL. Unset or "pebble": the data directory, as by default.
const EnvBackend = "HONMASTER_TEST_BACKEND"

// defaultConfig is the default configuration over a temporary data
// directory, on the backend EnvBackend asks for. On PostgreSQL the
// database is chosen by withDatabase, once mutate has had its say.
func defaultConfig(t testing.TB) *config.Config {
	t.Helper()
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	switch b := os.Getenv(EnvBackend); b {
	case "", config.BackendPebble:
	case config.BackendPostgres:
		cfg.Storage.Backend = config.BackendPostgres
	default:
		t.Fatalf("%s=%q: want pebble or postgres", EnvBackend, b)
	}
	return cfg
}

// databases maps the data directories of this process's servers on
// PostgreSQL to their databases, so that a test restarting a server over
// the same data directory (as it would on Pebble) gets the same database.
var (
	databasesMu sync.Mutex
	databases   = map[string]string{}
)

// withDatabase gives a PostgreSQL configuration without a URL the
// database of its data directory (a fresh one, dropped when the test that
// made it ends, for a new directory). A test that set a backend or URL of
// its own keeps it.
func withDatabase(t testing.TB, cfg *config.Config) {
	t.Helper()
	if cfg.Storage.Backend != config.BackendPostgres || cfg.Storage.Postgres.URL != "" {
		return
	}
	databasesMu.Lock()
	defer databasesMu.Unlock()
	url, ok := databases[cfg.Storage.DataDir]
	if !ok {
		url = storagetest.PostgresURL(t)
		databases[cfg.Storage.DataDir] = url
	}
	cfg.Storage.Postgres.URL = url
}

func start(t testing.TB, mutate func(*config.Config), demo bool, opts ...cli.StartOption) *Server {
	t.Helper()
	cfg := defaultConfig(t)
	cfg.Server.Listen = "127.0.0.1:0"
	cfg.Operator.Listen = "127.0.0.1:0"
	if mutate != nil {
		mutate(cfg)
	}
	withDatabase(t, cfg)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	rt, err := cli.Start(context.Background(), cfg, log, demo, io.Discard, opts...)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Runtime: rt, Config: cfg, Client: client.New("http://" + rt.Addr.String()), DataDir: cfg.Storage.DataDir}
	if cfg.Storage.Backend == config.BackendPostgres {
		// Offline commands (Run once the server stopped) must find the
		// database too: they get its settings in a file.
		s.configFile = filepath.Join(t.TempDir(), "storage.toml")
		body := fmt.Sprintf("[storage]\nbackend = %q\n[storage.postgres]\nurl = %q\n", cfg.Storage.Backend, cfg.Storage.Postgres.URL)
		if err := os.WriteFile(s.configFile, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		s.Client.HTTP.CloseIdleConnections()
		if err := s.Runtime.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return s
}

// OpenApp opens the host's services, without listeners, over a temporary
// data directory with the default settings, and a logger that discards. The
// App is closed when the test ends, after any cleanup registered later (a
// server mounted over it stops first).
func OpenApp(t testing.TB) (*cli.App, *config.Config, *slog.Logger) {
	t.Helper()
	cfg := defaultConfig(t)
	withDatabase(t, cfg)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	app, err := cli.OpenApp(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	return app, cfg, log
}

// Run runs an operator command (with --data of this server) through
// cli.Main, as an operator would, and returns its exit code and output.
func (s *Server) Run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	args = append(args, "--data", s.DataDir)
	if s.configFile != "" && !noConfig[args[0]] {
		args = append(args, "--config", s.configFile)
	}
	code = cli.Main(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// noConfig are the commands that take no --config (they talk to a server
// over HTTP, or print).
var noConfig = map[string]bool{"loadtest": true, "player": true, "version": true, "help": true}

// Host runs an operator command, fails the test unless it succeeds, and
// returns its trimmed standard output.
func (s *Server) Host(t testing.TB, args ...string) string {
	t.Helper()
	code, out, errOut := s.Run(args...)
	if code != 0 {
		t.Fatalf("host %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return strings.TrimSpace(out)
}

// Metrics reads the operator listener's /metrics into series -> value,
// the series written as the exposition format prints it (labels sorted):
// `honmaster_requests_total{outcome="ok",route="/master/casino/"}`.
func (s *Server) Metrics(t testing.TB) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + s.Runtime.OperatorAddr.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %s", resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// Main is TestMain for packages that start servers: the server starts its
// bundled plugins by re-executing the running binary, so the test binary
// must act as the host in plugin mode. cleanups run after the tests (for
// fixtures shared across tests or benchmarks).
func Main(m *testing.M, cleanups ...func()) {
	if cli.PluginMode(os.Args[1:]) {
		return
	}
	code := m.Run()
	for _, c := range cleanups {
		c()
	}
	os.Exit(code)
}

// LoadTestLimits raises or turns off the limits that hold per client
// address, as defaults.toml's [limits] comment (and bench/loadtest.toml)
// tells an operator to for a load test: the load tester registers every
// account, files every report, casts every vote, marks guides, switches
// accounts and drops from one address, and so do end-to-end tests that act as many players from
// 127.0.0.1. Pass it to Start (or call it from a mutate of one's own).
func LoadTestLimits(c *config.Config) {
	c.Limits.RegistrationsPerAddress = config.Rate{Burst: 1_000_000, Every: config.Duration{Duration: time.Millisecond}}
	c.Limits.LoginsAddress = config.Rate{}
	c.Limits.CloudBytesAddress = config.ByteRate{}
	c.Limits.ReportsAddress = config.Rate{}
	c.Limits.GuideVotesAddress = config.Rate{}
	c.Limits.GuideVotesGuideAddress = config.Rate{}
	c.Limits.TogglesAccount = config.Rate{}
	c.Limits.TogglesAddress = config.Rate{}
	// One address's connections: the default (64) leaves room for other
	// addresses, and a test acting as 100 players from 127.0.0.1 needs more.
	c.Limits.MaxConnectionsPerAddress = c.Limits.MaxConnections
	// Plinko's drops and purchases per account and per address
	// ([plinko] write_burst): a load test drops far faster than players.
	p := plinko.SettingsOf(c)
	p.WriteBurst = 0
	config.SetSection(c, "plinko", p)
}
