package cli_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/operator"
)

// rebindClient is a browser whose every host name resolves to the operator
// listener at addr, as a DNS rebinding page's name does: the URL's host
// goes into the Host header and the Origin, the connection goes to addr.
// Cookies are kept per host, as a browser keeps them.
func rebindClient(addr string) *http.Client {
	jar, _ := cookiejar.New(nil)
	var d net.Dialer
	return &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		}},
	}
}

// visit sends one request the way a page at origin does (Origin on a
// POST, as browsers send it) and returns the status and body.
func visit(t *testing.T, c *http.Client, method, rawURL string, form url.Values, token string) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, rawURL, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if method == http.MethodPost {
		u, _ := url.Parse(rawURL)
		req.Header.Set("Origin", u.Scheme+"://"+u.Host)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestOperatorListenerHostCheck (the DNS rebinding report): a page whose
// name resolves to the operator listener (Host: attacker.example:PORT)
// gets 421 and a sentence naming operator.allowed_hosts from the Go
// profiles (the command line), the metrics, the health details, the
// console's sign-in and the API, even with the right token; the console's
// sign-in failures are not spent. Named as 127.0.0.1:PORT, [::1]:PORT,
// localhost:PORT or a name in operator.allowed_hosts, the same requests
// are served and an operator signs in. A change sent from another site's
// page to the listener's own address is refused (403).
func TestOperatorListenerHostCheck(t *testing.T) {
	ts := start(t, func(c *config.Config) { c.Operator.AllowedHosts = []string{"console.example.org"} })
	ts.Host(t, "account", "create", "--login", "boss", "--password", "boss-pw")
	ts.Host(t, "account", "role", "--login", "boss", "--operator")
	token, err := operator.Token("", ts.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	addr := ts.Runtime.OperatorAddr.String()
	_, port, _ := net.SplitHostPort(addr)
	csrf := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)
	signIns := func() float64 {
		var n float64
		for k, v := range ts.Metrics(t) {
			if strings.HasPrefix(k, "honmaster_console_signins_total") {
				n += v
			}
		}
		return n
	}

	attacker := "http://attacker.example:" + port
	c := rebindClient(addr)
	before := signIns()
	for _, tt := range []struct {
		method, path string
		form         url.Values
		token        string
	}{
		{"GET", "/debug/pprof/cmdline", nil, ""},
		{"GET", "/metrics", nil, ""},
		{"GET", "/healthz", nil, ""},
		{"GET", "/console/signin", nil, ""},
		{"POST", "/console/signin", url.Values{"csrf": {"0123"}, "login": {"boss"}, "password": {"guess"}}, ""},
		{"GET", operator.PathAccount + "?login=boss", nil, token},
		{"POST", operator.PathGrant, url.Values{"login": {"boss"}, "gold": {"1000"}}, token},
	} {
		code, body := visit(t, c, tt.method, attacker+tt.path, tt.form, tt.token)
		if code != http.StatusMisdirectedRequest || !strings.Contains(body, "operator.allowed_hosts") {
			t.Errorf("%s %s as attacker.example: %d %.120q, want 421 naming operator.allowed_hosts", tt.method, tt.path, code, body)
		}
	}
	if n := signIns(); n != before {
		t.Errorf("console sign-ins counted %v → %v: the refused sign-in ran", before, n)
	}
	if out := ts.Host(t, "account", "show", "--login", "boss"); !strings.Contains(out, "gold 0 ") {
		t.Errorf("the refused grant reached the account:\n%s", out)
	}

	for _, host := range []string{"127.0.0.1:" + port, "[::1]:" + port, "localhost:" + port, "console.example.org:" + port} {
		base := "http://" + host
		c := rebindClient(addr)
		for _, path := range []string{"/debug/pprof/cmdline", "/metrics", "/healthz", operator.PathAccount + "?login=boss"} {
			if code, body := visit(t, c, "GET", base+path, nil, token); code != http.StatusOK {
				t.Errorf("GET %s as %s: %d %.120q, want 200", path, host, code, body)
			}
		}
		_, body := visit(t, c, "GET", base+"/console/signin", nil, "")
		m := csrf.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("sign-in page as %s: no form token:\n%s", host, body)
		}
		if code, body := visit(t, c, "POST", base+"/console/signin", url.Values{"csrf": {m[1]}, "login": {"boss"}, "password": {"boss-pw"}}, ""); code != http.StatusSeeOther {
			t.Errorf("sign-in as %s: %d %q, want 303", host, code, body)
		}
	}

	// A change sent from another site's page, to the listener's own
	// address (a plain cross-site POST, not a rebinding).
	req, _ := http.NewRequest("POST", "http://"+addr+operator.PathGrant, strings.NewReader("login=boss&gold=1000"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Origin", "http://attacker.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "operator.allowed_hosts") {
		t.Errorf("a grant from another site's page: %d %q, want 403 naming operator.allowed_hosts", resp.StatusCode, b)
	}
	if out := ts.Host(t, "account", "show", "--login", "boss"); !strings.Contains(out, "gold 0 ") {
		t.Errorf("the refused grant reached the account:\n%s", out)
	}
}

// TestOperatorAllowedHostsReload: operator.allowed_hosts changes on a
// reload, for the next request; a reload with an entry that is not a host
// name changes nothing and says which entry.
func TestOperatorAllowedHostsReload(t *testing.T) {
	dir := t.TempDir()
	body := func(hosts string) string {
		return fmt.Sprintf("[storage]\ndata_dir = %q\n[server]\nlisten = \"127.0.0.1:0\"\nlog_level = \"error\"\n"+
			"[operator]\nlisten = \"127.0.0.1:0\"\nallowed_hosts = [%s]\n", filepath.Join(dir, "data"), hosts)
	}
	rt, rewrite := startReloadable(t, dir, body(`"console.example.org"`), func(cfg *config.Config) *slog.Logger { return cli.NewServeLogger(cfg, io.Discard) }, false)
	write := func(hosts string) { rewrite(body(hosts)) }
	addr := rt.OperatorAddr.String()
	c := rebindClient(addr)
	status := func(host string) int {
		code, _ := visit(t, c, "GET", "http://"+host+"/metrics", nil, "")
		return code
	}
	if a, b := status("console.example.org"), status("ops.example.org"); a != 200 || b != 421 {
		t.Fatalf("before the reload: listed %d, unlisted %d; want 200, 421", a, b)
	}
	write(`"ops.example.org"`)
	res, err := rt.Reload(context.Background())
	if err != nil || !slices.Contains(res.Applied, "operator.allowed_hosts") {
		t.Fatalf("reload: %v, %v; want operator.allowed_hosts applied", res, err)
	}
	if a, b := status("console.example.org"), status("ops.example.org"); a != 421 || b != 200 {
		t.Errorf("after the reload: old name %d, new name %d; want 421, 200", a, b)
	}
	write(`"https://ops.example.org"`)
	if _, err := rt.Reload(context.Background()); err == nil || !strings.Contains(err.Error(), "operator.allowed_hosts[0]") {
		t.Errorf("reload with a URL in allowed_hosts: %v, want a refusal naming operator.allowed_hosts[0]", err)
	}
	if b := status("ops.example.org"); b != 200 {
		t.Errorf("after the refused reload: %d, want 200 (the list in force kept)", b)
	}
	if code := status(addr); code != 200 {
		t.Errorf("by address: %d, want 200", code)
	}
}
