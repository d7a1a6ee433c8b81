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

// TestServeFlagValuesWorded: a bad value of serve's --plugin or
// --log-level is refused with what the flag wants (it once said only "not
// a valid value"), before anything is created.
func TestServeFlagValuesWorded(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--plugin", "foo"}, `--plugin "foo": want AREA=PATH, e.g. guides=`},
		{[]string{"--plugin", "nosuch=/bin/true"}, `--plugin "nosuch=/bin/true": unknown plugin area "nosuch" (known: `},
		{[]string{"--log-level", "loud"}, `--log-level "loud": want debug, info, warn or error`},
		{[]string{"--demo=maybe"}, `--demo "maybe": want true or false`},
	} {
		data := filepath.Join(t.TempDir(), "data")
		var out, errOut strings.Builder
		code := cli.Main(context.Background(), append([]string{"serve", "--data", data}, tc.args...), &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), tc.want) || strings.Contains(errOut.String(), "not a valid value") {
			t.Errorf("serve %v: exit %d, stderr %q; want exit 2 with %q", tc.args, code, errOut.String(), tc.want)
		}
		if _, err := os.Stat(data); !os.IsNotExist(err) {
			t.Errorf("serve %v: the data directory was created (%v)", tc.args, err)
		}
	}
}
