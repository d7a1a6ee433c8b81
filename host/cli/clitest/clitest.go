// Package clitest provides a real server for end-to-end tests of the host and
// its areas: started on a loopback port over a temporary data directory, with
// operator commands run through the same code path as the command line.
package clitest

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/client"
)

// Server is a started server and a client of it.
type Server struct {
	Runtime *cli.Runtime
	Config  *config.Config
	Client  *client.Client
	DataDir string
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

func start(t testing.TB, mutate func(*config.Config), demo bool, opts ...cli.StartOption) *Server {
	t.Helper()
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	cfg.Server.Listen = "127.0.0.1:0"
	cfg.Operator.Listen = "127.0.0.1:0"
	if mutate != nil {
		mutate(cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	rt, err := cli.Start(context.Background(), cfg, log, demo, io.Discard, opts...)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Runtime: rt, Config: cfg, Client: client.New("http://" + rt.Addr.String()), DataDir: cfg.Storage.DataDir}
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
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
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
	code = cli.Main(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

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
// address, as defaults.toml's [limits] comment tells an operator to for a
// load test: the load tester registers every account, files every report
// and casts every vote from one address, and so do end-to-end tests that
// act as many players from 127.0.0.1. Pass it to Start (or call it from a
// mutate of one's own).
func LoadTestLimits(c *config.Config) {
	c.Limits.RegistrationsPerAddress = config.Rate{Burst: 1_000_000, Every: config.Duration{Duration: time.Millisecond}}
	c.Limits.CloudBytesAddress = config.ByteRate{}
	c.Limits.ReportsAddress = config.Rate{}
	c.Limits.GuideVotesAddress = config.Rate{}
	c.Limits.GuideVotesGuideAddress = config.Rate{}
}
