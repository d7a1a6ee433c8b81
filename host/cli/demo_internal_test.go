package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
)

// TestDemoDataDir: serve --demo uses its own data directory unless --data
// or the configuration names one; serve without --demo keeps the default.
func TestDemoDataDir(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--demo"}, DemoDataDir},
		{nil, config.Default().Storage.DataDir},
		{[]string{"--demo", "--data", "./data"}, "./data"},
		{[]string{"--data", "/srv/hon", "--demo"}, "/srv/hon"},
	} {
		fs, demo := serveFlags(io.Discard)
		cfg, err := config.FromArgs(fs, tc.args)
		if err != nil {
			t.Fatal(err)
		}
		demoDir(fs, cfg, *demo)
		if cfg.Storage.DataDir != tc.want {
			t.Errorf("serve %v: data directory %q, want %q", tc.args, cfg.Storage.DataDir, tc.want)
		}
	}
}

// TestPrintDemoConsoleWhere: serve --demo says where the demo's data is: a
// data directory on Pebble, the PostgreSQL database (its password left
// out) on PostgreSQL, where no data directory holds it.
func TestPrintDemoConsoleWhere(t *testing.T) {
	cfg := config.Default()
	cfg.Storage.DataDir = "/srv/demo"
	var out strings.Builder
	printDemoConsole(&out, cfg, nil)
	if !strings.Contains(out.String(), "demo data directory: /srv/demo (delete it") {
		t.Errorf("on Pebble: %q", out.String())
	}
	cfg.Storage.Backend = config.BackendPostgres
	cfg.Storage.Postgres.URL = "postgres://honmaster:hunter2@db.example/demo"
	out.Reset()
	printDemoConsole(&out, cfg, nil)
	if s := out.String(); strings.Contains(s, "data directory") || strings.Contains(s, "/srv/demo") || strings.Contains(s, "hunter2") ||
		!strings.Contains(s, "demo database: the PostgreSQL database at postgres://honmaster") {
		t.Errorf("on PostgreSQL: %q", s)
	}
}
