package operator

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// hostServer is an operator listener on loopback with a stand-in for each
// kind of page the real one mounts: metrics and the console's sign-in
// (public), an API read and an API change (token), and New's profiles.
// ran counts the requests that reached a stand-in.
func hostServer(t *testing.T, allowed ...string) (s *Server, addr string, ran *atomic.Int64) {
	t.Helper()
	ran = new(atomic.Int64)
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { ran.Add(1); io.WriteString(w, "served") })
	s = New(Options{Token: testToken, AllowedHosts: allowed, Log: slog.New(slog.DiscardHandler)})
	s.Handle("GET /metrics", ok)
	s.Handle("GET /console/signin", ok)
	s.Handle("POST /console/signin", ok)
	s.HandleAPI("GET "+PathAccount, ok)
	s.HandleAPI("POST "+PathGrant, ok)
	s.HandleAPI("DELETE "+PathAccount, ok)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Shutdown(t.Context()) })
	return s, ln.Addr().String(), ran
}

// send sends one request over the loopback connection to addr, naming host
// in its Host header (the browser of a DNS rebinding page names its own),
// with the operator token and origin when given. It returns the status and
// the body.
func send(t *testing.T, addr, method, host, path, token, origin string) (int, string) {
	t.Helper()
	return sendFrom(t, addr, method, host, path, token, origin, "")
}

// sendFrom is send with a Sec-Fetch-Site header when fetchSite is set.
func sendFrom(t *testing.T, addr, method, host, path, token, origin, fetchSite string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader("login=x&password=y"))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if fetchSite != "" {
		req.Header.Set("Sec-Fetch-Site", fetchSite)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// every request the DNS rebinding report made, and the API.
var rebindTargets = []struct{ method, path, token string }{
	{"GET", "/debug/pprof/cmdline", ""},
	{"GET", "/debug/pprof/", ""},
	{"GET", "/metrics", ""},
	{"GET", "/console/signin", ""},
	{"POST", "/console/signin", ""},
	{"GET", PathAccount + "?login=x", testToken},
	{"POST", PathGrant, testToken},
}

// TestForeignHostRefused (the DNS rebinding report): a request whose Host
// names a host that is not an IP address, localhost or listed in
// operator.allowed_hosts is answered 421 with a sentence naming the
// setting, and reaches no handler: not the profiles (the command line),
// the metrics, the console's sign-in nor the API, even with the right
// token.
func TestForeignHostRefused(t *testing.T) {
	_, addr, ran := hostServer(t, "console.example.org")
	_, port, _ := net.SplitHostPort(addr)
	for _, host := range []string{"attacker.example:" + port, "attacker.example", "ATTACKER.example.:" + port,
		"console.example.org.attacker.example", "localhost.attacker.example:" + port, "127.0.0.1.nip.io:" + port,
		"sub.localhost:" + port} {
		for _, tt := range rebindTargets {
			code, body := send(t, addr, tt.method, host, tt.path, tt.token, "")
			if code != http.StatusMisdirectedRequest || !strings.Contains(body, "operator.allowed_hosts") {
				t.Errorf("%s %s with Host %q: %d %.120q, want 421 naming operator.allowed_hosts", tt.method, tt.path, host, code, body)
			}
		}
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("%d refused requests reached a handler", n)
	}
}

// TestOwnHostsServed: the same requests naming the listener by an IP
// address (v4, v6, any address: an address cannot be rebound), localhost,
// or a name in operator.allowed_hosts (any case, a final dot, any port)
// are served; so is an HTTP/1.0 request without Host (HAProxy's default
// health check).
func TestOwnHostsServed(t *testing.T) {
	_, addr, _ := hostServer(t, "console.example.org", "Metrics.Internal.")
	_, port, _ := net.SplitHostPort(addr)
	for _, host := range []string{"127.0.0.1:" + port, "[::1]:" + port, "localhost:" + port, "LocalHost", "localhost.:" + port,
		"192.0.2.7:8081", "[2001:db8::1]:8081", "127.0.0.1", "console.example.org", "console.example.org:443",
		"Console.Example.ORG.", "metrics.internal:9090"} {
		for _, tt := range rebindTargets {
			if code, body := send(t, addr, tt.method, host, tt.path, tt.token, ""); code != http.StatusOK {
				t.Errorf("%s %s with Host %q: %d %q, want 200", tt.method, tt.path, host, code, body)
			}
		}
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET /metrics HTTP/1.0\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("HTTP/1.0 without Host: %d, want 200", resp.StatusCode)
	}
}

// TestForeignHostSpendsNoTokenFailure: wrong tokens sent under a refused
// Host are refused before the token check, so a rebinding page cannot use
// up 127.0.0.1's token failures and lock the operator's API calls out.
func TestForeignHostSpendsNoTokenFailure(t *testing.T) {
	_, addr, _ := hostServer(t)
	for range 30 { // the default burst is 10
		if code, _ := send(t, addr, "GET", "attacker.example", PathAccount, "guess", ""); code != http.StatusMisdirectedRequest {
			t.Fatalf("a guess under a foreign Host: %d, want 421", code)
		}
	}
	if code, body := send(t, addr, "GET", addr, PathAccount, testToken, ""); code != http.StatusOK {
		t.Errorf("the right token afterwards: %d %q, want 200", code, body)
	}
}

// TestOriginOfChanges: a request that changes something (POST, DELETE)
// from another site's page is answered 403 naming the setting, whatever
// its Host. The browser's Sec-Fetch-Site decides when present
// (same-origin and none pass); without it, the Origin's host must be the
// request's own, loopback, or a listed name. Reads, requests with neither
// header (curl, the load tester), and an Origin of "null" without
// Sec-Fetch-Site (the console's own forms under Referrer-Policy:
// no-referrer, over plain HTTP off loopback) pass.
func TestOriginOfChanges(t *testing.T) {
	_, addr, ran := hostServer(t, "console.example.org")
	_, port, _ := net.SplitHostPort(addr)
	for _, tt := range []struct {
		method, host, path, origin, site string
		want                             int
	}{
		{"POST", addr, "/console/signin", "", "", 200},
		{"POST", addr, "/console/signin", "http://" + addr, "", 200},
		{"POST", "localhost:" + port, "/console/signin", "http://localhost:" + port, "", 200},
		{"POST", "[::1]:" + port, "/console/signin", "http://[::1]:" + port, "", 200},
		{"POST", addr, "/console/signin", "http://localhost:3000", "", 200}, // loopback
		{"POST", "console.example.org", "/console/signin", "https://console.example.org", "", 200},
		{"POST", addr, "/console/signin", "https://console.example.org", "", 200}, // a proxy that rewrote Host
		{"POST", "10.0.0.5:8081", "/console/signin", "http://10.0.0.5:8081", "", 200},
		{"POST", "10.0.0.5:8081", "/console/signin", "null", "", 200}, // the console's own form, plain HTTP off loopback
		{"POST", addr, "/console/signin", "null", "same-origin", 200}, // the console's own form, as Chromium sends it
		{"POST", addr, "/console/signin", "", "none", 200},
		{"GET", addr, "/console/signin", "http://attacker.example", "cross-site", 200}, // a read
		{"POST", addr, "/console/signin", "http://attacker.example", "", 403},
		{"POST", addr, "/console/signin", "http://attacker.example:" + port, "", 403},
		{"POST", addr, "/console/signin", "http://203.0.113.5", "", 403}, // another site, by address
		{"POST", "console.example.org", "/console/signin", "https://console.example.org.attacker.example", "", 403},
		{"POST", addr, "/console/signin", "file://", "", 403},
		{"POST", addr, "/console/signin", "null", "cross-site", 403}, // a sandboxed frame elsewhere
		{"POST", addr, "/console/signin", "", "cross-site", 403},
		{"POST", addr, "/console/signin", "http://localhost:3000", "same-site", 403},
		{"POST", addr, PathGrant, "http://attacker.example", "", 403},
		{"DELETE", addr, PathAccount, "http://attacker.example", "cross-site", 403},
	} {
		before := ran.Load()
		code, body := sendFrom(t, addr, tt.method, tt.host, tt.path, testToken, tt.origin, tt.site)
		if code != tt.want {
			t.Errorf("%s %s Host %q Origin %q Sec-Fetch-Site %q: %d %q, want %d", tt.method, tt.path, tt.host, tt.origin, tt.site, code, body, tt.want)
		}
		if tt.want == http.StatusForbidden && (!strings.Contains(body, "operator.allowed_hosts") || ran.Load() != before) {
			t.Errorf("%s %s Origin %q: body %q, handler ran %v; want a sentence naming operator.allowed_hosts and no handler",
				tt.method, tt.path, tt.origin, body, ran.Load() != before)
		}
	}
}

// TestSetAllowedHosts: a reload's new list is in force for the next
// request.
func TestSetAllowedHosts(t *testing.T) {
	s, addr, _ := hostServer(t, "console.example.org")
	if code, _ := send(t, addr, "GET", "console.example.org", "/metrics", "", ""); code != 200 {
		t.Fatalf("listed name: %d", code)
	}
	s.SetAllowedHosts([]string{"ops.example.org"})
	if code, _ := send(t, addr, "GET", "console.example.org", "/metrics", "", ""); code != http.StatusMisdirectedRequest {
		t.Errorf("a name taken off the list: %d, want 421", code)
	}
	if code, _ := send(t, addr, "GET", "ops.example.org", "/metrics", "", ""); code != 200 {
		t.Errorf("a name added: %d, want 200", code)
	}
	s.SetAllowedHosts(nil)
	if code, _ := send(t, addr, "GET", "ops.example.org", "/metrics", "", ""); code != http.StatusMisdirectedRequest {
		t.Errorf("an emptied list: %d, want 421", code)
	}
	if code, _ := send(t, addr, "GET", addr, "/metrics", "", ""); code != 200 {
		t.Errorf("the address with an empty list: %d, want 200", code)
	}
}
