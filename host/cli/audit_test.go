package cli_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/operator"
)

// TestAuditTrail: an operator action writes one line of the audit trail
// (log=audit) saying who asked (local command, console operator, API
// token), the action, the account, what it asked for and the outcome,
// however it was asked: a role change (the value, not a Go pointer), a
// report resolution (the report, its action and moderator), a console
// grant, an API grant and a failed one; offline, a role change and a
// restore say theirs on stderr.
func TestAuditTrail(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	cfg := config.Default()
	cfg.Storage.DataDir = data
	cfg.Server.Listen, cfg.Operator.Listen = "127.0.0.1:0", "127.0.0.1:0"
	var logs syncBuffer
	rt, err := cli.Start(ctx, cfg, slog.New(slog.NewTextHandler(&logs, nil)), true, new(strings.Builder))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Stop() })
	run := func(args ...string) string {
		t.Helper()
		out, _ := mustMain(t, append(args, "--data", data)...)
		return out
	}
	// audited returns the trail's lines that hold every one of want.
	audited := func(want ...string) []string {
		var found []string
		for _, l := range strings.Split(logs.String(), "\n") {
			ok := strings.Contains(l, `msg="operator action" log=audit`)
			for _, w := range want {
				ok = ok && strings.Contains(l, w)
			}
			if ok {
				found = append(found, l)
			}
		}
		return found
	}
	expect := func(what string, want ...string) {
		t.Helper()
		if got := audited(want...); len(got) != 1 {
			t.Errorf("%s: %d lines of the trail with %q, want 1; the log:\n%s", what, len(got), want, logs.String())
		}
	}

	run("account", "create", "--login", "troll", "--password", "t-pw")
	run("account", "create", "--login", "victim", "--password", "v-pw")
	run("account", "role", "--login", "troll", "--operator")
	expect("account role", `by="local command" action="account role" account=troll change.operator=true outcome=ok`)
	if strings.Contains(logs.String(), "operator=0x") {
		t.Errorf("the role change is logged as a pointer:\n%s", logs.String())
	}
	run("account", "role", "--login", "troll", "--operator=false")

	// A report, resolved by a command.
	mustMain(t, "player", "report", "--server", "http://"+rt.Addr.String(), "--login", "victim", "--password", "v-pw",
		"--reportee", "troll", "--reason", "feeding")
	id := regexp.MustCompile(`(?m)^(\S+)\s+open`).FindStringSubmatch(run("reports", "list"))
	if id == nil {
		t.Fatal("no open report listed")
	}
	run("reports", "resolve", id[1], "--action", "dismiss", "--by", "mod_anna")
	expect("reports resolve", `by="local command" action="reports resolve"`, "change.action=dismiss", "change.by=mod_anna", "change.id="+id[1], "outcome=ok")

	// A grant from the console.
	c := signedInConsole(t, "http://"+rt.OperatorAddr.String(), "demo_admin", "demo-admin-pass")
	csrf := formToken(t, c, "http://"+rt.OperatorAddr.String()+"/console/account?login=victim")
	if _, err := c.PostForm("http://"+rt.OperatorAddr.String()+"/console/account/grant",
		url.Values{"csrf": {csrf}, "login": {"victim"}, "gold": {"7"}}); err != nil {
		t.Fatal(err)
	}
	expect("console grant", `by=console:demo_admin action=account/grant account=victim`, "change.gold=7", "outcome=ok", `result="granted; balances now gold 7`)

	// The operator API: a grant, and one refused.
	token, err := os.ReadFile(filepath.Join(data, operator.TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	ts := &clitest.Server{Runtime: rt, Config: cfg, Client: client.New("http://" + rt.Addr.String()), DataDir: data}
	if code, body := operatorCall(t, ts, http.MethodPost, operator.PathGrant, url.Values{"login": {"victim"}, "tickets": {"3"}}, strings.TrimSpace(string(token))); code != 200 {
		t.Fatalf("API grant: %d %s", code, body)
	}
	expect("API grant", `by="api token" action="POST /operator/v1/grant" account=victim change.tickets=3`, "outcome=ok")
	if code, _ := operatorCall(t, ts, http.MethodPost, operator.PathGrant, url.Values{"login": {"nobody"}, "tickets": {"3"}}, strings.TrimSpace(string(token))); code != 404 {
		t.Fatalf("API grant to no one: %d", code)
	}
	expect("refused API grant", `action="POST /operator/v1/grant" account=nobody`, `outcome="failed: `)
	if err := rt.Stop(); err != nil {
		t.Fatal(err)
	}

	// Offline: no server's log, the line on stderr; a read says nothing.
	offline := func(args ...string) string {
		t.Helper()
		_, stderr := mustMain(t, args...)
		return stderr
	}
	if e := offline("account", "role", "--data", data, "--login", "victim", "--operator"); !strings.Contains(e,
		`log=audit by="local command" action="account role" account=victim change.operator=true outcome=ok`) {
		t.Errorf("offline role change: stderr %q", e)
	}
	if e := offline("account", "show", "--data", data, "--login", "victim"); e != "" {
		t.Errorf("offline account show: stderr %q", e)
	}
	backup := filepath.Join(t.TempDir(), "backup")
	if err := os.CopyFS(filepath.Join(backup, "db"), os.DirFS(filepath.Join(data, "db"))); err != nil {
		t.Fatal(err)
	}
	if e := offline("restore", "--from", backup, "--data", data, "--replace"); !strings.Contains(e, `log=audit by="local command" action=restore`) ||
		!strings.Contains(e, "change.replace=true outcome=ok") {
		t.Errorf("restore: stderr %q", e)
	}
}

// mustMain runs the command line args as the binary does and fails the
// test when it exits non-zero.
func mustMain(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	code, stdout, stderr := runMain(args...)
	if code != 0 {
		t.Fatalf("%v: exit %d, %s%s", args, code, stdout, stderr)
	}
	return stdout, stderr
}
