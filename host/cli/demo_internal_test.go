package cli

import (
	"io"
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
