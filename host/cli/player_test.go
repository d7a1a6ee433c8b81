package cli_test

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
)

// TestPlayerCommands: "player login" shows the session record's susp_id,
// "player report" files a report the queue shows; refusals are sentences.
func TestPlayerCommands(t *testing.T) {
	ts := clitest.Start(t, nil)
	ts.Host(t, "account", "create", "--login", "victim", "--password", "v-pw")
	ts.Host(t, "account", "create", "--login", "troll", "--password", "t-pw")
	server := "http://" + ts.Runtime.Addr.String()
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := cli.Main(context.Background(), append([]string{"player"}, args...), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"login", []string{"login", "--server", server, "--login", "troll", "--password", "t-pw"}, 0, "susp_id 0"},
		{"wrong password", []string{"login", "--server", server, "--login", "troll", "--password", "nope"}, 1, "login refused: "},
		{"report", []string{"report", "--server", server, "--login", "victim", "--password", "v-pw", "--reportee", "troll", "--reason", "feeding", "--text", "fed"}, 0, "report filed against troll"},
		{"report self", []string{"report", "--server", server, "--login", "troll", "--password", "t-pw", "--reportee", "troll"}, 1, "report refused"},
		{"unknown reason", []string{"report", "--server", server, "--login", "victim", "--password", "v-pw", "--reportee", "troll", "--reason", "rude"}, 2, "--reason \"rude\" is not one of"},
		{"help", []string{"report", "--help"}, 0, "player report [--server URL]"},
		{"help names the nickname", []string{"report", "--help"}, 0, "--reportee is\nthe reported player's nickname"},
		{"no verb", []string{"dance"}, 2, "want login or report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(tc.args...)
			if code != tc.code || !strings.Contains(out+errOut, tc.want) {
				t.Errorf("exit %d, want %d with %q:\n%s%s", code, tc.code, tc.want, out, errOut)
			}
			if strings.Contains(out+errOut, "client:") {
				t.Errorf("package name in output:\n%s%s", out, errOut)
			}
		})
	}
	if out := ts.Host(t, "reports", "list", "--reportee", "troll"); !strings.Contains(out, "1 report(s)") || !strings.Contains(out, `"fed"`) {
		t.Errorf("queue after player report:\n%s", out)
	}
}

// closedPort returns the address of a loopback port nothing listens on:
// a connection to it is refused at once.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestPlayerServerUnreachable: a --server nothing answers at is a
// sentence naming it, not Go's `Post "...": dial tcp ...`.
func TestPlayerServerUnreachable(t *testing.T) {
	server := "http://" + closedPort(t)
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), []string{"player", "login", "--server", server, "--login", "a", "--password", "b"}, &out, &errOut)
	want := "honmaster: could not reach the server at " + server + " (connection refused): is it running, and is --server right?\n"
	if code != 1 || errOut.String() != want {
		t.Errorf("exit %d, stderr %q; want 1, %q", code, errOut.String(), want)
	}
}
