package cli_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/operator"
)

// operatorForbidden are internal package names (and library names) that
// must never reach an operator: they belong in logs.
var operatorForbidden = []string{"wire:", "actors:", "storage:", "host:", "cli:", "config:", "accounts:", "cloud:", "plinko:",
	"guides:", "reports:", "console:", "sdk:", "supervisor:", "json:", "toml:", "pebble", "flag:", "panic", "goroutine"}

func operatorWorded(t *testing.T, what, text string) {
	t.Helper()
	for _, p := range operatorForbidden {
		if strings.Contains(text, p) {
			t.Errorf("%s shows %q: %q", what, p, text)
		}
	}
}

// TestEveryCommandErrorWorded runs every operator command with bad input
// (unknown login, report or guide, bad values, missing flags and
// arguments, unreadable and invalid files), through the running server's
// admin socket and again with the server stopped. Each fails with the
// right exit status (2 for a command-line mistake, 1 for a refused
// operation), a sentence worded for an operator without internal package
// names, nothing on stdout, and the very same text either way.
func TestEveryCommandErrorWorded(t *testing.T) {
	ts := start(t, onPebble) // its backup row is Pebble's (PostgreSQL's: TestBackupOnPostgres)
	ts.Host(t, "account", "create", "--login", "taken", "--password", "pw")
	dir := t.TempDir()
	badCatalog := filepath.Join(dir, "catalog.json")
	badGuides := filepath.Join(dir, "guides.json")
	os.WriteFile(badCatalog, []byte(`{"chests": "many"}`), 0o600)
	os.WriteFile(badGuides, []byte(`"not a guide file"`), 0o600)
	missing := filepath.Join(dir, "missing-file")
	existing := t.TempDir()

	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"account", "show", "--login", "nobody"}, 1, `no account has the login "nobody"`},
		{[]string{"account", "show", "--login", "x", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"account", "show", "--login", "x", "--bogus"}, 2, "unknown flag --bogus"},
		{[]string{"account", "show"}, 2, "--login is required"},
		{[]string{"account", "show", "--init", "--login", "x"}, 2, "--init is only for account create"},
		{[]string{"account", "grant", "--login", "nobody", "--gold", "1"}, 1, `no account has the login "nobody"`},
		{[]string{"account", "grant", "--login", "taken", "--gold", "-1"}, 1, "grant refused, nothing changed: gold balance would go negative"},
		{[]string{"account", "grant", "--login", "taken", "--upgrade", "nodot"}, 1, `grant refused, nothing changed: upgrade "nodot"`},
		{[]string{"account", "grant", "--login", "taken", "--tickets", "many"}, 2, `--tickets "many": not a number`},
		{[]string{"account", "grant", "--tickets", "1"}, 2, "--login is required"},
		{[]string{"account", "create", "--login", "taken", "--password", "pw"}, 1, `the login "taken" is already taken`},
		{[]string{"account", "create", "--login", "no spaces", "--password", "pw"}, 1, "a login is 1 to 12"},
		{[]string{"account", "create", "--login", "mail", "--password", "pw", "--email", "nope"}, 1, "an e-mail address must be a plain address"},
		{[]string{"account", "create", "--login", "sub", "--password", "pw", "--parent", "nobody"}, 1, `--parent "nobody" must be the login of an existing main account`},
		{[]string{"account", "create", "--login", "nopw"}, 2, "--password is required"},
		{[]string{"account", "role", "--login", "nobody", "--operator"}, 1, `no account has the login "nobody"`},
		{[]string{"account", "role", "--operator"}, 2, "--login is required"},
		{[]string{"account", "role", "--login", "taken", "--operator=maybe"}, 2, `--operator "maybe": want true or false`},
		{[]string{"account", "show", "--login"}, 2, "--login needs a value"},
		{[]string{"account", "grant", "--login", "taken", "--gold", "99999999999999999999"}, 2, `--gold "99999999999999999999": out of range`},
		{[]string{"account"}, 2, "account needs a subcommand"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"backup"}, 2, "--to is required"},
		{[]string{"backup", "--to", existing}, 1, "backup not written: " + existing + " already exists"},
		{[]string{"plugins", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"products", "import"}, 2, "give one file"},
		{[]string{"products", "import", missing}, 1, "cannot read the catalog: open " + missing + ": no such file or directory"},
		{[]string{"products", "import", badCatalog}, 1, "catalog " + badCatalog + " is not valid, nothing imported"},
		{[]string{"cloud", "show", "--login", "nobody"}, 1, `no account has the login "nobody"`},
		{[]string{"cloud", "show", "--login", "taken"}, 1, `account "taken" has no settings stored`},
		{[]string{"cloud", "show", "--login", "taken", "--bucket", ""}, 2, "--bucket must not be empty"},
		{[]string{"reports", "list", "--status", "bogus"}, 2, `--status "bogus" is not one of`},
		{[]string{"reports", "show", "9-9"}, 1, "no report has the ID 9-9"},
		{[]string{"reports", "show", "nine"}, 2, `report ID "nine" is not REPORTER-NUMBER`},
		{[]string{"reports", "show"}, 2, "the report ID is missing"},
		{[]string{"reports", "resolve", "nine", "--action", "warn"}, 2, `report ID "nine" is not REPORTER-NUMBER`},
		{[]string{"reports", "resolve", "9-9", "--action", "dismiss"}, 1, "no report has the ID 9-9"},
		{[]string{"reports", "resolve", "9-9", "--action", "ban"}, 2, "--action must be dismiss, warn or suspend"},
		{[]string{"reports", "resolve", "9-9", "--action", "suspend"}, 2, "suspend needs --days"},
		{[]string{"reports", "resolve", "9-9", "--action", "warn", "--by", " "}, 2, "--by needs a name"},
		{[]string{"guides", "hide", "--gid", "7777"}, 1, "no guide with gid 7777"},
		{[]string{"guides", "premium", "--gid", "7777"}, 1, "no guide with gid 7777"},
		{[]string{"guides", "hide"}, 2, "--gid is required"},
		{[]string{"guides", "unhide", "--gid", "x"}, 2, `--gid "x": want a guide id`},
		{[]string{"guides", "import", missing}, 1, "cannot read the guide file: open " + missing},
		{[]string{"guides", "import", badGuides}, 1, "guide file " + badGuides + " is not valid, nothing imported"},
	}
	online := map[int]string{}
	check := func(t *testing.T, mode string, i int) {
		t.Helper()
		tc := cases[i]
		code, out, errOut := ts.Run(tc.args...)
		what := mode + ": " + strings.Join(tc.args, " ")
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d with %q", what, code, errOut, tc.code, tc.want)
		}
		if out != "" {
			t.Errorf("%s: stdout %q", what, out)
		}
		if !strings.HasPrefix(errOut, cli.Name+": ") {
			t.Errorf("%s: stderr %q does not start with %q", what, errOut, cli.Name+": ")
		}
		if hint := strings.Contains(errOut, "Run '"+cli.Name+" help'"); hint != (tc.code == 2) {
			t.Errorf("%s: help hint %t for exit %d: %q", what, hint, code, errOut)
		}
		operatorWorded(t, what, errOut)
		if mode == "online" {
			online[i] = errOut
		} else if errOut != online[i] {
			t.Errorf("%s: offline says %q, online said %q", what, errOut, online[i])
		}
	}
	for i := range cases {
		check(t, "online", i)
	}
	if err := ts.Runtime.Stop(); err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		check(t, "offline", i)
	}
}

// TestSetupErrorsWorded: a mistyped data directory, an unreadable or bad
// configuration file and a directory that is not a database are each one
// sentence with the right exit status and no internal names.
func TestSetupErrorsWorded(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[server]\nlisen = 1\n"), 0o600)
	notDir := filepath.Join(dir, "file")
	os.WriteFile(notDir, []byte("x"), 0o600)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing data dir", []string{"--data", filepath.Join(dir, "mistyped")}, 1, "does not exist"},
		{"data dir is a file", []string{"--data", notDir}, 1, "is not a directory"},
		{"data dir without database", []string{"--data", t.TempDir()}, 1, "not a data directory"},
		{"missing config file", []string{"--data", dir, "--config", filepath.Join(dir, "none.conf")}, 2, "cannot read the configuration file"},
		{"bad config file", []string{"--data", dir, "--config", bad}, 2, "server.lisen"},
		{"--data without value", []string{"--data"}, 2, "--data needs a value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := cli.Main(context.Background(), append([]string{"account", "show", "--login", "x"}, tc.args...), &out, &errOut)
			if code != tc.code || !strings.Contains(errOut.String(), tc.want) || out.Len() != 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d with %q", code, out.String(), errOut.String(), tc.code, tc.want)
			}
			if strings.Contains(errOut.String(), "usage:") {
				t.Errorf("usage dumped: %q", errOut.String())
			}
			operatorWorded(t, "stderr", errOut.String())
		})
	}
}

// TestOperatorAPIErrorsWorded: the operator API answers failures with the
// commands' sentences and a status saying whose fault it was, never an
// internal error text (it once said {"error":"actors: login taken: ..."}).
func TestOperatorAPIErrorsWorded(t *testing.T) {
	ts := start(t, nil)
	ts.Host(t, "account", "create", "--login", "taken", "--password", "pw")
	tokenBytes, err := os.ReadFile(filepath.Join(ts.DataDir, operator.TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(tokenBytes))
	for _, tc := range []struct {
		method, path string
		form         url.Values
		status       int
		want         string
	}{
		{"POST", "/operator/v1/account", url.Values{"login": {"taken"}, "password": {"pw"}}, http.StatusConflict, `the login \"taken\" is already taken`},
		{"POST", "/operator/v1/account", url.Values{"login": {"no spaces"}, "password": {"pw"}}, http.StatusBadRequest, "a login is 1 to 12"},
		{"POST", "/operator/v1/account", url.Values{"login": {"sub"}, "password": {"pw"}, "parent": {"nobody"}}, http.StatusBadRequest, "--parent"},
		{"GET", "/operator/v1/account?login=nobody", nil, http.StatusNotFound, `no account has the login \"nobody\"`},
		{"POST", "/operator/v1/grant", url.Values{"login": {"nobody"}, "gold": {"1"}}, http.StatusNotFound, `no account has the login \"nobody\"`},
		{"POST", "/operator/v1/grant", url.Values{"login": {"taken"}, "gold": {"-1"}}, http.StatusBadRequest, "grant refused, nothing changed"},
		{"POST", "/operator/v1/grant", url.Values{"login": {"taken"}, "gold": {"x"}}, http.StatusBadRequest, "gold must be an integer"},
	} {
		t.Run(tc.method+" "+tc.path+" "+tc.form.Encode(), func(t *testing.T) {
			code, body := operatorCall(t, ts, tc.method, tc.path, tc.form, token)
			if code != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("status %d body %s; want %d with %s", code, body, tc.status, tc.want)
			}
			operatorWorded(t, "body", body)
		})
	}
}

// TestOnlineOfflineSameOutput: a command prints the same whether the
// server runs (the request travels over the admin socket) or not.
func TestOnlineOfflineSameOutput(t *testing.T) {
	ts := start(t, nil)
	ts.Host(t, "account", "create", "--login", "same", "--password", "pw")
	ts.Host(t, "account", "create", "--login", "samesub", "--password", "pw", "--parent", "same")
	ts.Host(t, "account", "grant", "--login", "same", "--tickets", "7", "--upgrade", "aa.Hero_Pyromancer.Alt2")
	commands := [][]string{
		{"account", "show", "--login", "same"},
		{"account", "show", "--login", "samesub"},
		{"reports", "list", "--status", "any"},
		{"guides", "list"},
	}
	var online []string
	for _, c := range commands {
		online = append(online, ts.Host(t, c...))
	}
	if err := ts.Runtime.Stop(); err != nil {
		t.Fatal(err)
	}
	for i, c := range commands {
		if got := ts.Host(t, c...); got != online[i] {
			t.Errorf("%s: offline %q, online %q", strings.Join(c, " "), got, online[i])
		}
	}
	if !strings.Contains(online[0], "tickets 7") || !strings.Contains(online[0], "aa.Hero_Pyromancer.Alt2") {
		t.Errorf("show after grant: %q", online[0])
	}
}
