package cli_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/client"
)

// startLogged starts a server with the default configuration changed by
// mutate, its log (info and above) written to the returned buffer.
func startLogged(t *testing.T, mutate func(*config.Config)) (*client.Client, *syncBuffer) {
	t.Helper()
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	cfg.Storage.Backend = config.BackendPebble
	cfg.Server.Listen = "127.0.0.1:0"
	cfg.Operator.Enabled = false
	cfg.Server.LogLevel = config.LogInfo
	if mutate != nil {
		mutate(cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	rt, err := cli.Start(context.Background(), cfg, cli.NewServeLogger(cfg, logs), false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New("http://" + rt.Addr.String())
	t.Cleanup(func() {
		c.HTTP.CloseIdleConnections()
		rt.Stop()
	})
	return c, logs
}

// accessLines are the access lines of a log.
func accessLines(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "msg=access ") {
			out = append(out, l)
		}
	}
	return out
}

// TestAccessLineBounded: a pre_auth or srpAuth whose login is ~1 MiB is
// refused as too long, and its access line stays under 1 KiB (it used to
// carry the whole login: 1 MiB of log per request, issue 36 item 1).
func TestAccessLineBounded(t *testing.T) {
	c, logs := startLogged(t, nil)
	ctx := context.Background()
	// As long as server.body_limit (1 MiB) lets a login be.
	const size = 1<<20 - 1024
	huge := strings.Repeat("a", size)
	for _, f := range []string{"pre_auth", "srpAuth"} {
		before := len(logs.String())
		r, err := c.PostForm(ctx, "/client_requester.php?f="+f, url.Values{"login": {huge}, "A": {"01"},
			"proof": {strings.Repeat("0", 64)}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(r.Body), "at most 12 characters") {
			t.Errorf("%s with a 1 MiB login answered %.200q, want the login-too-long refusal", f, r.Body)
		}
		written := logs.String()[before:]
		lines := accessLines(written)
		if len(lines) != 1 {
			t.Fatalf("%s: %d access lines, want 1:\n%.2000s", f, len(lines), written)
		}
		t.Logf("%s with a 1 MiB login: %d bytes of log, access line %d bytes", f, len(written), len(lines[0]))
		if len(written) >= 1<<10 {
			t.Errorf("%s with a 1 MiB login wrote %d bytes of log, want under 1 KiB:\n%.2000s", f, len(written), written)
		}
		if !strings.Contains(lines[0], fmt.Sprintf("(%d bytes)", size)) || !strings.Contains(lines[0], "outcome=login_too_long") {
			t.Errorf("%s: access line %q lacks the login's length or its outcome", f, lines[0])
		}
	}
}

// TestAccessLineNamesSessionAccount: a request that carries only a session
// cookie names the cookie's account in its access line (issue 40 item 4),
// a logout too (its session is gone once served).
func TestAccessLineNamesSessionAccount(t *testing.T) {
	c, logs := startLogged(t, nil)
	ctx := context.Background()
	if r, err := c.PostForm(ctx, "/portal/register", url.Values{"login": {"alice"}, "password": {"pw"}}); err != nil || r.Status != 200 {
		t.Fatalf("register: %v %v", r, err)
	}
	s, err := c.Login(ctx, "alice", "pw")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PostForm(ctx, "/master/casino/drop/", url.Values{"cookie": {s.Cookie}, "currency": {"tickets"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PostForm(ctx, "/client_requester.php?f=logout", url.Values{"cookie": {s.Cookie}}); err != nil {
		t.Fatal(err)
	}
	// The cookie, now of no session: a line of nobody's.
	if _, err := c.PostForm(ctx, "/master/casino/drop/", url.Values{"cookie": {s.Cookie}, "currency": {"tickets"}}); err != nil {
		t.Fatal(err)
	}
	lines := accessLines(logs.String())
	var got []string
	for _, l := range lines {
		if strings.Contains(l, "route=/master/casino/drop/") || strings.Contains(l, "f=logout") {
			got = append(got, l)
		}
	}
	want := []string{"account=" + s.AccountID + " route=/master/casino/drop/", "account=" + s.AccountID + ` route="client_requester.php?f=logout"`,
		"account=- route=/master/casino/drop/"}
	if len(got) != len(want) {
		t.Fatalf("access lines %q, want %d of the drops and the logout", got, len(want))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("access line %q lacks %q", got[i], w)
		}
	}
}

// TestAccessLogSampling: server.access_log = "errors" writes the lines of
// failures only; a rate writes every failure and exactly that share of the
// successes.
func TestAccessLogSampling(t *testing.T) {
	for _, tt := range []struct {
		setting string
		ok      int // successful lines of 8
	}{{"errors", 0}, {"0.25", 2}, {"true", 8}, {"false", 0}} {
		t.Run(tt.setting, func(t *testing.T) {
			var mode config.AccessLog
			if err := mode.UnmarshalText([]byte(tt.setting)); err != nil {
				t.Fatal(err)
			}
			c, logs := startLogged(t, func(cfg *config.Config) { cfg.Server.AccessLog = mode })
			ctx := context.Background()
			for range 8 {
				if r, err := c.PostForm(ctx, "/patcher/patcher.php?os=wac&arch=x86_64", nil); err != nil || r.Status != 200 {
					t.Fatalf("patcher: %v %v", r, err)
				}
			}
			for range 3 {
				if _, err := c.PostForm(ctx, "/no/such/path", nil); err != nil {
					t.Fatal(err)
				}
			}
			ok, failed := 0, 0
			for _, l := range accessLines(logs.String()) {
				switch {
				case strings.Contains(l, "outcome=ok"):
					ok++
				case strings.Contains(l, "outcome=not_found"):
					failed++
				}
			}
			wantFailed := 3
			if tt.setting == "false" {
				wantFailed = 0
			}
			if ok != tt.ok || failed != wantFailed {
				t.Errorf("access_log = %s: %d successful and %d failed lines, want %d and %d", tt.setting, ok, failed, tt.ok, wantFailed)
			}
		})
	}
}

// TestOperatorHealthz: the operator listener answers /healthz as the game
// port does, with the details the game port keeps to itself.
func TestOperatorHealthz(t *testing.T) {
	ts := start(t, nil)
	r, err := http.Get("http://" + ts.Runtime.OperatorAddr.String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != 200 || string(b) != "ok\n" {
		t.Errorf("operator /healthz: %d %q, want 200 ok", r.StatusCode, b)
	}
}
