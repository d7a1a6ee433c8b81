package cli

import (
	"io"
	"log/slog"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/limit"
)

// openTestApp opens an App with the default configuration over a fresh data
// directory, closed when the test ends (in-package tests; other packages
// use clitest.OpenApp).
func openTestApp(t *testing.T) *App {
	t.Helper()
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	app, err := OpenApp(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	return app
}

// TestOpenAppUsesIPv6Prefix: an operator command run without a server
// (account by-address) groups IPv6 addresses by limits.ipv6_prefix, as
// the server does; only serve set it before.
func TestOpenAppUsesIPv6Prefix(t *testing.T) {
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	cfg.Limits.IPv6Prefix = 48
	t.Cleanup(func() { limit.SetIPv6Prefix(limit.DefaultIPv6Prefix) })
	app, err := OpenApp(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	if got := limit.AddrKey("2001:db8:0:1::1"); got != "2001:db8::/48" {
		t.Errorf("key of 2001:db8:0:1::1 with ipv6_prefix 48: %q, want 2001:db8::/48", got)
	}
}
