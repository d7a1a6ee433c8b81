package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/cli"
)

// TestServeRefusesAStrayArgument: serve ignored a stray argument and,
// the flag package stopping there, every flag after it: "--demo false"
// (a boolean flag takes its value with =) turned the demo ON, seeding its
// accounts with published passwords, an operator among them, and a bad
// --log-level after it was never checked. Every other command refuses an
// unexpected argument; serve does now (exit 2, nothing opened). (From a
// review of the command line; it served the demo before.)
func TestServeRefusesAStrayArgument(t *testing.T) {
	data := filepath.Join(t.TempDir(), "d")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // should it serve, it stops then
	defer cancel()
	var out, errOut strings.Builder
	code := cli.Main(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--operator-listen", "127.0.0.1:0", "--data", data,
		"--demo", "false", "--log-level", "bogus"}, &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), `unexpected argument "false"`) {
		t.Errorf("serve with a stray argument: exit %d, want 2 naming it; stderr:\n%s", code, errOut.String())
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Errorf("the data directory was created (%v): something was opened", err)
	}
}
