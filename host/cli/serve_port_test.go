package cli_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/cli"
)

// TestServePortTakenChangesNothing: a serve whose game or operator port is
// taken says so, naming the setting and its flag, before it creates the
// data directory or starts a plugin; an unknown flag is shown as typed
// with two dashes.
func TestServePortTakenChangesNothing(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tc := range []struct {
		name, listen, operator, want string
	}{
		{"game port", taken.Addr().String(), "127.0.0.1:0", "(server.listen, --listen): the address is in use"},
		{"operator port", "127.0.0.1:0", taken.Addr().String(), "(operator.listen, --operator-listen): the address is in use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			var out, errOut strings.Builder
			code := cli.Main(context.Background(), []string{"serve", "--listen", tc.listen, "--operator-listen", tc.operator, "--data", data}, &out, &errOut)
			if code == 0 || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want %q", code, errOut.String(), tc.want)
			}
			if _, err := os.Stat(data); !os.IsNotExist(err) {
				t.Errorf("the data directory was created (%v)", err)
			}
			if strings.Contains(errOut.String()+out.String(), "plugin") {
				t.Errorf("a plugin was mentioned: %q %q", out.String(), errOut.String())
			}
		})
	}

	var errOut strings.Builder
	code := cli.Main(context.Background(), []string{"serve", "--lisen", ":1"}, &strings.Builder{}, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "unknown flag --lisen") {
		t.Errorf("serve --lisen: exit %d, %q", code, errOut.String())
	}
}
