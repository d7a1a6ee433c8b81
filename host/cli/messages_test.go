package cli_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
)

// internalPrefixes are package names that must never reach a player or an
// operator.
var internalPrefixes = []string{"wire:", "actors:", "storage:", "host:", "accounts:", "cloud:", "plinko:"}

func noPrefix(t *testing.T, what, text string) {
	t.Helper()
	for _, p := range internalPrefixes {
		if strings.Contains(text, p) {
			t.Errorf("%s shows the internal prefix %q: %q", what, p, text)
		}
	}
}

// TestRepliesWordedForPlayers: failures of the patcher and the registration
// page are sentences, without internal package names.
func TestRepliesWordedForPlayers(t *testing.T) {
	ts := start(t, nil)
	ts.Host(t, "account", "create", "--login", "newplayer", "--password", "pw")
	ctx := context.Background()
	for _, tc := range []struct {
		name, path string
		form       url.Values
		want       string
	}{
		{"patch without os", "/patcher/patcher.php", url.Values{"arch": {"x86_64"}}, `missing form field "os"`},
		{"register taken", "/portal/register", url.Values{"login": {"newplayer"}, "password": {"pw"}}, "already taken"},
		{"register bad login", "/portal/register", url.Values{"login": {"no spaces"}, "password": {"pw"}}, "a login is 1 to 12"},
		{"register without password", "/portal/register", url.Values{"login": {"someone"}}, `missing form field "password"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ts.Client.PostForm(ctx, tc.path, tc.form)
			if err != nil {
				t.Fatal(err)
			}
			body := string(r.Body)
			if !strings.Contains(strings.ReplaceAll(body, `\"`, `"`), tc.want) { // JSON escapes quotes, PHP does not
				t.Errorf("body %s lacks %q", body, tc.want)
			}
			noPrefix(t, "reply", body)
		})
	}
}

// TestCommandErrorsWordedForOperators: command failures, through the running
// server's admin socket and with the server stopped, are sentences without
// internal package names.
func TestCommandErrorsWordedForOperators(t *testing.T) {
	ts := start(t, nil)
	ts.Host(t, "account", "create", "--login", "taken", "--password", "pw")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"account", "show", "--login", "nobody"}, `no account has the login "nobody"`},
		{[]string{"account", "grant", "--login", "nobody", "--gold", "1"}, `no account has the login "nobody"`},
		{[]string{"account", "grant", "--login", "taken", "--gold", "-1"}, "grant refused"},
		{[]string{"account", "create", "--login", "taken", "--password", "pw"}, `the login "taken" is already taken`},
		{[]string{"account", "create", "--login", "x", "--password", "pw", "--parent", "nobody"}, "--parent"},
		{[]string{"cloud", "show", "--login", "nobody"}, `no account has the login "nobody"`},
		{[]string{"cloud", "show", "--login", "taken"}, "no settings stored"},
	}
	check := func(t *testing.T, args []string, want string) {
		t.Helper()
		code, _, errOut := ts.Run(args...)
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", strings.Join(args, " "), code, errOut, want)
		}
		noPrefix(t, "stderr", errOut)
	}
	for _, tc := range cases {
		check(t, tc.args, tc.want)
	}
	if err := ts.Runtime.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		check(t, tc.args, tc.want)
	}
}

// TestDerivedURLsAnswer: the login record's icb_url and the patcher's url
// come from the public address, and the icb_url is a page this server
// answers (not a 404).
func TestDerivedURLsAnswer(t *testing.T) {
	ts := start(t, func(c *config.Config) { c.Server.PublicURL = "https://hon.example.org" })
	ctx := context.Background()
	ts.Host(t, "account", "create", "--login", "icb", "--password", "pw")
	s, err := ts.Client.Login(ctx, "icb", "pw")
	if err != nil {
		t.Fatal(err)
	}
	if icb, _ := s.Record.String("icb_url"); icb != "https://hon.example.org/" {
		t.Errorf("icb_url = %q", icb)
	}
	r, err := ts.Client.PostForm(ctx, "/patcher/patcher.php", url.Values{"os": {"wac"}, "arch": {"x86_64"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.Body), `"https://hon.example.org/patches/"`) {
		t.Errorf("patch reply %s", r.Body)
	}
	// Both derived URLs, on this server's address, answer.
	for _, path := range []string{"/", "/patches/"} {
		r, err := ts.Client.HTTP.Get(ts.Client.Base + path)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != 200 {
			t.Errorf("%s (a default URL): status %d", path, r.StatusCode)
		}
	}
}
