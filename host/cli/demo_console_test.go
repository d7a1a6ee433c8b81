package cli_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/console"
)

// TestDemoOperatorAndConsoleURL: serve --demo creates an operator of the
// console and prints it with the console's URL, and the operator
// listener's front page sends a browser to the console.
func TestDemoOperatorAndConsoleURL(t *testing.T) {
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	cfg.Server.Listen, cfg.Operator.Listen = "127.0.0.1:0", "127.0.0.1:0"
	var out bytes.Buffer
	rt, err := cli.Start(context.Background(), cfg, slog.New(slog.DiscardHandler), true, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Stop() })
	consoleURL := "http://" + rt.OperatorAddr.String() + "/console/"
	if want := "web console: " + consoleURL + " (sign in as demo_admin / demo-admin-pass)"; !strings.Contains(out.String(), want) {
		t.Errorf("serve --demo printed\n%s\nwithout %q", out.String(), want)
	}
	id, err := rt.App.DB.LoginID("demo_admin")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := console.IsOperator(rt.App.DB, id); err != nil || !ok {
		t.Errorf("demo_admin is not an operator: %v, %v", ok, err)
	}

	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := hc.Get("http://" + rt.OperatorAddr.String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	if loc := r.Header.Get("Location"); r.StatusCode != http.StatusFound || loc != "/console/" {
		t.Errorf("GET / on the operator listener: %d to %q, want 302 to /console/", r.StatusCode, loc)
	}
	// Other paths are still not found.
	r, err = hc.Get("http://" + rt.OperatorAddr.String() + "/nothing")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nothing: %d", r.StatusCode)
	}
}

// TestDemoStoreRefusedWithoutDemo: a server started without --demo on the
// demo's database refuses to start, naming the accounts and the way out;
// so does one on an older demo database (not marked) whose demo_admin is
// still an operator. Once the demo's accounts are deleted, it starts; a
// player called "demo" in a database the demo never seeded is no concern.
func TestDemoStoreRefusedWithoutDemo(t *testing.T) {
	ctx := context.Background()
	startOn := func(dir string, demo bool) (*cli.Runtime, error) {
		cfg := config.Default()
		cfg.Storage.DataDir = dir
		cfg.Server.Listen, cfg.Operator.Listen = "127.0.0.1:0", "127.0.0.1:0"
		rt, err := cli.Start(ctx, cfg, slog.New(slog.DiscardHandler), demo, io.Discard)
		if err == nil {
			t.Cleanup(func() { rt.Stop() })
		}
		return rt, err
	}
	run := func(args ...string) {
		t.Helper()
		mustMain(t, args...)
	}

	demoDir := t.TempDir()
	rt, err := startOn(demoDir, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Stop(); err != nil {
		t.Fatal(err)
	}
	_, err = startOn(demoDir, false)
	if err == nil || !strings.Contains(err.Error(), "demo_admin, demo, friend") || !strings.Contains(err.Error(), "--demo") {
		t.Fatalf("start without --demo on the demo's database: %v", err)
	}
	for _, login := range []string{"demo_admin", "demo", "friend"} {
		run("account", "delete", "--data", demoDir, "--login", login, "--yes")
	}
	if _, err := startOn(demoDir, false); err != nil {
		t.Fatalf("start once the demo's accounts are deleted: %v", err)
	}

	// A database seeded before the mark: its demo_admin, an operator.
	old := t.TempDir()
	run("account", "create", "--init", "--data", old, "--login", "demo", "--password", "mine")
	run("account", "create", "--data", old, "--login", "demo_admin", "--password", "demo-admin-pass")
	run("account", "role", "--data", old, "--login", "demo_admin", "--operator")
	if _, err := startOn(old, false); err == nil || !strings.Contains(err.Error(), "(demo_admin)") {
		t.Fatalf("start without --demo beside an operator demo_admin: %v", err)
	}
	run("account", "role", "--data", old, "--login", "demo_admin", "--operator=false")
	if _, err := startOn(old, false); err != nil {
		t.Fatalf("start with demo_admin no operator, and a player called demo: %v", err)
	}
}

// TestDemoRefusesForeignStore: serve --demo on a database that holds
// accounts and is not the demo's refuses to start (a configuration
// mistake, exit status 2) and adds nothing to it: no demo_admin with its
// published password. The demo's own database, with players registered
// since, and one seeded before the mark still serve the demo.
func TestDemoRefusesForeignStore(t *testing.T) {
	real := t.TempDir()
	mustMain(t, "account", "create", "--init", "--data", real, "--login", "alice", "--password", "secret-pass")
	// Its context already ended: a server that started anyway stops at once
	// rather than serve until the test times out.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, errOut strings.Builder
	code := cli.Main(ctx, []string{"serve", "--demo", "--data", real, "--listen", "127.0.0.1:0", "--operator-listen", "127.0.0.1:0"},
		&stdout, &errOut)
	stderr := errOut.String()
	if code != 2 || !strings.Contains(stderr, "honmaster: the database in data directory "+real+" is not the demo's") || !strings.Contains(stderr, "Serve it without --demo") {
		t.Errorf("serve --demo on a database with accounts: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runMain("account", "show", "--data", real, "--login", "demo_admin"); code == 0 ||
		!strings.Contains(stderr, "no account has the login") {
		t.Errorf("after the refusal, account show demo_admin: exit %d, %s", code, stderr)
	}
	if _, _, err := startDemoOn(t, real, false); err != nil {
		t.Errorf("the database is not left a demo one: %v", err)
	}

	// The demo's own database, with a player registered since.
	demoDir := t.TempDir()
	rt, _, err := startDemoOn(t, demoDir, true)
	if err != nil {
		t.Fatal(err)
	}
	rt.Stop()
	mustMain(t, "account", "create", "--data", demoDir, "--login", "bob", "--password", "secret-pass")
	if _, _, err := startDemoOn(t, demoDir, true); err != nil {
		t.Errorf("serve --demo again on the demo's database: %v", err)
	}

	// One seeded before the mark: its demo_admin an operator.
	old := t.TempDir()
	mustMain(t, "account", "create", "--init", "--data", old, "--login", "demo_admin", "--password", "demo-admin-pass")
	mustMain(t, "account", "role", "--data", old, "--login", "demo_admin", "--operator")
	mustMain(t, "account", "create", "--data", old, "--login", "carol", "--password", "secret-pass")
	if _, _, err := startDemoOn(t, old, true); err != nil {
		t.Errorf("serve --demo on a demo database seeded before the mark: %v", err)
	}
}

// startDemoOn starts a server on loopback over the data directory dir,
// with the demo's seed if demo, and stops it when the test ends.
func startDemoOn(t *testing.T, dir string, demo bool) (*cli.Runtime, string, error) {
	t.Helper()
	cfg := config.Default()
	cfg.Storage.DataDir = dir
	cfg.Server.Listen, cfg.Operator.Listen = "127.0.0.1:0", "127.0.0.1:0"
	var out bytes.Buffer
	rt, err := cli.Start(context.Background(), cfg, slog.New(slog.DiscardHandler), demo, &out)
	if err == nil {
		t.Cleanup(func() { rt.Stop() })
	}
	return rt, out.String(), err
}
