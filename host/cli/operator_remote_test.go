package cli_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/operator"
)

// TestOperatorOffLoopbackRefused: an operator address off loopback stops
// serve before anything listens (exit 2, a sentence naming the setting),
// unless operator.allow_remote says so. (192.0.2.1 is a documentation
// address no interface has: the test never binds off loopback, and the old
// code failed on it with exit 1, cannot listen.)
func TestOperatorOffLoopbackRefused(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "remote.toml")
	if err := os.WriteFile(conf, []byte("[operator]\nlisten = \"192.0.2.1:0\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a serve that got past its checks returns at once
	var out, errOut bytes.Buffer
	code := cli.Main(ctx, []string{"serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--config", conf}, &out, &errOut)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	for _, want := range []string{"operator.listen", `"192.0.2.1:0" is not a loopback address`, "operator.allow_remote = true"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q: %q", want, errOut.String())
		}
	}
	if strings.Contains(errOut.String(), "config:") {
		t.Errorf("an internal name reached the operator: %q", errOut.String())
	}
}

// TestRemoteOperatorNeedsToken: with operator.allow_remote the profiles
// answer only with the token (the metrics stay public, for scrapers).
func TestRemoteOperatorNeedsToken(t *testing.T) {
	ts := start(t, func(c *config.Config) { c.Operator.AllowRemote = true })
	token, err := operator.Token("", ts.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ts.Runtime.OperatorAddr.String()
	for _, tt := range []struct {
		path, token string
		want        int
	}{
		{"/debug/pprof/goroutine?debug=1", "", http.StatusUnauthorized},
		{"/debug/pprof/cmdline", "wrong-wrong-wrong", http.StatusUnauthorized},
		{"/debug/pprof/goroutine?debug=1", token, http.StatusOK},
		{"/metrics", "", http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodGet, base+tt.path, nil)
		if tt.token != "" {
			req.Header.Set("Authorization", "Bearer "+tt.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s with token %q: %d, want %d", tt.path, tt.token, resp.StatusCode, tt.want)
		}
	}
}

// TestOperatorTokenGuessesThrottled: past
// operator.token_failures_per_address, wrong tokens from one address are
// answered 429 (the right one too), with Retry-After.
func TestOperatorTokenGuessesThrottled(t *testing.T) {
	ts := start(t, func(c *config.Config) {
		c.Operator.TokenFailures = config.Rate{Burst: 3, Every: config.Duration{Duration: time.Hour}}
	})
	token, err := operator.Token("", ts.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	var codes []int
	for _, tok := range []string{"guess-1", "guess-2", "guess-3", "guess-4", token} {
		code, _ := operatorCall(t, ts, http.MethodGet, "/operator/v1/account?login=nobody", nil, tok)
		codes = append(codes, code)
	}
	want := []int{401, 401, 401, 429, 429}
	for i := range want {
		if codes[i] != want[i] {
			t.Fatalf("answers %v, want %v", codes, want)
		}
	}
}

// TestConsoleCookieSecureUnderHTTPS: with an https server.public_url
// (console.secure_cookie "auto") the console's cookies carry Secure even
// though the operator listener speaks plain HTTP (a TLS proxy in front);
// without, they do not (a browser would drop them over plain HTTP).
func TestConsoleCookieSecureUnderHTTPS(t *testing.T) {
	for _, tt := range []struct {
		publicURL string
		want      bool
	}{{"https://hon.example.org", true}, {"", false}} {
		ts := start(t, func(c *config.Config) { c.Server.PublicURL = tt.publicURL })
		resp, err := http.Get("http://" + ts.Runtime.OperatorAddr.String() + "/console/signin")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		cs := resp.Cookies()
		if len(cs) == 0 {
			t.Fatalf("public_url %q: no cookie", tt.publicURL)
		}
		for _, c := range cs {
			if c.Secure != tt.want {
				t.Errorf("public_url %q: cookie %s Secure %v, want %v", tt.publicURL, c.Name, c.Secure, tt.want)
			}
		}
	}
}

// TestConsoleRoleRevokedByCommand: `account role --operator=false` on the
// admin socket ends the operator's signed-in console session at its next
// request (issue 22's report: a 1,000-ticket grant went through after it).
func TestConsoleRoleRevokedByCommand(t *testing.T) {
	ts := start(t, nil)
	ts.Host(t, "account", "create", "--login", "boss", "--password", "boss-pw")
	ts.Host(t, "account", "create", "--login", "player", "--password", "player-pw")
	ts.Host(t, "account", "role", "--login", "boss", "--operator")
	base := "http://" + ts.Runtime.OperatorAddr.String() + "/console/"
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page := func(resp *http.Response, err error) (int, string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	csrf := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)
	_, body := page(c.Get(base + "signin"))
	m := csrf.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no form token:\n%s", body)
	}
	if code, body := page(c.PostForm(base+"signin", url.Values{"csrf": {m[1]}, "login": {"boss"}, "password": {"boss-pw"}})); code != http.StatusSeeOther {
		t.Fatalf("sign-in: %d\n%s", code, body)
	}
	_, body = page(c.Get(base + "account?login=player"))
	if m = csrf.FindStringSubmatch(body); m == nil {
		t.Fatalf("account page:\n%s", body)
	}
	grant := url.Values{"csrf": {m[1]}, "login": {"player"}, "tickets": {"1000"}}
	if code, _ := page(c.PostForm(base+"account/grant", grant)); code != http.StatusSeeOther {
		t.Fatalf("grant before: %d", code)
	}

	ts.Host(t, "account", "role", "--login", "boss", "--operator=false")

	if code, _ := page(c.PostForm(base+"account/grant", grant)); code != http.StatusForbidden {
		t.Errorf("grant after the role was taken: %d, want 403", code)
	}
	if code, _ := page(c.Get(base)); code != http.StatusSeeOther {
		t.Errorf("dashboard after the role was taken: %d, want a redirect to the sign-in", code)
	}
	if out := ts.Host(t, "account", "show", "--login", "player"); !strings.Contains(out, "tickets 1000\n") {
		t.Errorf("balances: %s, want the first grant only", out)
	}
}
