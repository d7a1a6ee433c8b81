package cli

import (
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

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

// TestOpenAppSetsProcessLimits: an operator command run without a server
// (account by-address) groups IPv6 addresses by limits.ipv6_prefix, as
// the server does; only serve set it before. The server and every
// command also give limits.tracked_keys to the limiters made without a
// bound of their own (the console's, the operator listener's, the
// matches area's), which kept 100,000 keys whatever it said.
func TestOpenAppSetsProcessLimits(t *testing.T) {
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	cfg.Limits.IPv6Prefix = 48
	cfg.Limits.TrackedKeys = 1000
	t.Cleanup(func() { limit.SetIPv6Prefix(limit.DefaultIPv6Prefix); limit.SetDefaultMaxKeys(0) })
	app, err := OpenApp(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	if got := limit.AddrKey("2001:db8:0:1::1"); got != "2001:db8::/48" {
		t.Errorf("key of 2001:db8:0:1::1 with ipv6_prefix 48: %q, want 2001:db8::/48", got)
	}
	k := limit.New(limit.Rate{Burst: 1, Every: time.Hour}, 0, nil)
	for i := range 3000 {
		k.Allow(strconv.Itoa(i))
	}
	if n := k.Len(); n > 1000 {
		t.Errorf("a limiter without a bound of its own kept %d keys with tracked_keys 1000", n)
	}
}
