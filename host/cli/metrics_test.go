package cli_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/operator"
)

// scrape reads the operator listener's /metrics (clitest.Server.Metrics).
func scrape(t *testing.T, ts *clitest.Server) map[string]float64 {
	t.Helper()
	return ts.Metrics(t)
}

// operatorCall sends an operator API request with the server's token.
func operatorCall(t *testing.T, ts *clitest.Server, method, path string, form url.Values, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+ts.Runtime.OperatorAddr.String()+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestMetricsCountTraffic scrapes /metrics before and after known traffic
// and checks that the counters moved by exactly that traffic.
func TestMetricsCountTraffic(t *testing.T) {
	ts := start(t, nil)
	ctx := context.Background()
	ts.Host(t, "account", "create", "--login", "mia", "--password", "pw")
	tokenBytes, err := os.ReadFile(filepath.Join(ts.DataDir, operator.TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(tokenBytes))
	if code, _ := operatorCall(t, ts, "POST", "/operator/v1/grant", url.Values{"login": {"mia"}, "tickets": {"1000"}}, ""); code != http.StatusUnauthorized {
		t.Fatalf("grant without token: %d, want 401", code)
	}
	if code, body := operatorCall(t, ts, "POST", "/operator/v1/grant", url.Values{"login": {"mia"}, "tickets": {"1000"}}, token); code != 200 || !strings.Contains(body, `"tickets":1000`) {
		t.Fatalf("grant: %d %s", code, body)
	}

	before := scrape(t, ts)
	// The traffic: one good login, one wrong password, two unknown paths,
	// one drop.
	s, err := ts.Client.Login(ctx, "mia", "pw")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Client.Login(ctx, "mia", "wrong"); !errors.Is(err, client.ErrLogin) {
		t.Fatalf("wrong password: %v", err)
	}
	for range 2 {
		r, err := ts.Client.PostForm(ctx, "/no/such/path", url.Values{"x": {"1"}})
		if err != nil || r.Status != 404 {
			t.Fatalf("unknown path: %v %v", r, err)
		}
	}
	r, err := ts.Client.PostForm(ctx, "/master/casino/drop/", url.Values{"cookie": {s.Cookie}, "currency": {"tickets"}})
	if err != nil || !bytes.Contains(r.Body, []byte(`s:11:"status_code";s:1:"1";`)) {
		t.Fatalf("drop: %v %q", err, r.Body)
	}
	after := scrape(t, ts)

	delta := func(series string) float64 { return after[series] - before[series] }
	for series, want := range map[string]float64{
		`honmaster_http_requests_total{outcome="ok",route="client_requester.php?f=pre_auth"}`:            2,
		`honmaster_http_requests_total{outcome="ok",route="client_requester.php?f=srpAuth"}`:             1,
		`honmaster_http_requests_total{outcome="wrong_password",route="client_requester.php?f=srpAuth"}`: 1,
		`honmaster_http_requests_total{outcome="not_found",route="unknown"}`:                             2,
		`honmaster_http_requests_total{outcome="ok",route="/master/casino/drop/"}`:                       1,
		`honmaster_http_request_duration_seconds_count{outcome="ok",route="/master/casino/drop/"}`:       1,
		`honmaster_logins_total{outcome="ok"}`:                                                           1,
		`honmaster_logins_total{outcome="wrong_password"}`:                                               1,
		`honmaster_sessions_created_total{via="login"}`:                                                  1,
		`honmaster_plugin_calls_total{area="plinko",method="drop",outcome="ok"}`:                         1,
		`honmaster_plugin_call_duration_seconds_count{area="plinko",method="drop"}`:                      1,
		`honmaster_storage_commit_errors_total`:                                                          0,
		`honmaster_plugin_restarts_total{area="plinko"}`:                                                 0,
		`honmaster_http_connections_shed_total{reason="evicted_idle"}`:                                   0,
	} {
		if got := delta(series); got != want {
			t.Errorf("%s moved by %v, want %v", series, got, want)
		}
	}
	// A login commits its session, a drop its result: at least two synced
	// commits, each timed.
	if got := delta("honmaster_storage_commit_duration_seconds_count"); got < 2 {
		t.Errorf("commits counted: %v, want >= 2", got)
	}
	if got := delta("honmaster_actor_mailbox_wait_seconds_count"); got < 2 {
		t.Errorf("mailbox waits counted: %v, want >= 2", got)
	}
	for _, series := range []string{`honmaster_http_connections_open`, `honmaster_actors_live`, `honmaster_sessions_cached`, `honmaster_plugin_up{area="plinko"}`, `honmaster_pebble_disk_space_bytes`} {
		if after[series] < 1 {
			t.Errorf("%s = %v, want >= 1", series, after[series])
		}
	}
	for _, series := range []string{"go_goroutines", "process_resident_memory_bytes"} {
		if _, ok := after[series]; !ok {
			t.Errorf("%s missing", series)
		}
	}
	// pprof is on the same listener.
	resp, err := http.Get("http://" + ts.Runtime.OperatorAddr.String() + "/debug/pprof/goroutine?debug=1")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("pprof: %v %v", resp, err)
	}
	resp.Body.Close()
}

// TestOperatorOff: operator.enabled = false serves no operator listener and
// generates no token.
func TestOperatorOff(t *testing.T) {
	ts := start(t, func(c *config.Config) { c.Operator.Enabled = false })
	if ts.Runtime.Operator != nil || ts.Runtime.OperatorAddr != nil {
		t.Fatalf("operator listener running at %v", ts.Runtime.OperatorAddr)
	}
	if _, err := os.Stat(filepath.Join(ts.DataDir, operator.TokenFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("token file: %v", err)
	}
}

// TestSilentConnectionGetsNoReply: a connection that sends nothing until
// the read timeout is closed without a reply (the Go client logs
// "Unsolicited response" for one) and is not counted as a request.
func TestSilentConnectionGetsNoReply(t *testing.T) {
	ts := start(t, func(c *config.Config) { c.Server.ReadTimeout = config.Duration{Duration: 300 * time.Millisecond} })
	before := scrape(t, ts)
	conn, err := net.Dial("tcp", ts.Runtime.Addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(conn)
	if err != nil || len(b) != 0 {
		t.Fatalf("silent connection got %q, %v; want nothing and EOF", b, err)
	}
	after := scrape(t, ts)
	for k, v := range after {
		if strings.HasPrefix(k, "honmaster_http_requests_total") && v != before[k] {
			t.Errorf("%s moved by %v", k, v-before[k])
		}
	}
}
