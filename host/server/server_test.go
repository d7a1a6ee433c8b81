package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/wire"
)

// serve runs s on an in-memory listener and returns an HTTP client for it.
func serve(t *testing.T, s *Server) *http.Client {
	t.Helper()
	return client(listen(t, s))
}

// listen serves s on an in-memory listener until the test ends.
func listen(t *testing.T, s *Server) *fasthttputil.InmemoryListener {
	ln := fasthttputil.NewInmemoryListener()
	go s.Serve(ln)
	t.Cleanup(func() { s.Shutdown(context.Background()); ln.Close() })
	return ln
}

func client(ln *fasthttputil.InmemoryListener) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) { return ln.Dial() }}}
}

func get(t *testing.T, c *http.Client, method, path, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://host"+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	r, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, r.Header.Get("Content-Type"), string(b)
}

func newTestServer() *Server {
	cfg := config.Default()
	return New(Deps{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
}

func TestRouting(t *testing.T) {
	s := newTestServer()
	failShape := func(err error) Response { return Text("text/plain", "failed: "+err.Error()) }
	echo := func(_ context.Context, r *wire.Request) Response {
		return PHP(s.log, struct {
			Echo string `php:"echo"`
		}{r.Form.Get("x")})
	}
	if err := s.Mount(
		Route{Path: "/ok", Area: "test", Handler: echo},
		Route{Func: "echo_fn", Area: "test", Handler: echo},
		Route{Path: "/panics", Area: "test", Fail: failShape, Handler: func(context.Context, *wire.Request) Response {
			panic("handler bug")
		}},
	); err != nil {
		t.Fatal(err)
	}
	c := serve(t, s)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		contentType, want        string
	}{
		{"handler", "POST", "/ok", "x=hi", 200, "text/plain; charset=UTF-8", `a:1:{s:4:"echo";s:2:"hi";}`},
		{"panic answers the route's failure shape", "POST", "/panics", "", 200, "text/plain", "failed: internal error: handler bug"},
		{"area function, f in the query", "POST", "/client_requester.php?f=echo_fn", "x=q", 200, "text/plain; charset=UTF-8", `a:1:{s:4:"echo";s:1:"q";}`},
		{"area function, f as a form field", "POST", "/client_requester.php", "f=echo_fn&x=form", 200, "text/plain; charset=UTF-8", `a:1:{s:4:"echo";s:4:"form";}`},
		{"unknown path", "POST", "/nope", "", 404, "text/plain; charset=UTF-8",
			`a:3:{s:5:"error";s:12:"unknown path";s:16:"vested_threshold";i:5;i:0;b:1;}`},
		{"unknown function", "POST", "/client_requester.php?f=zzz", "", 404, "text/plain; charset=UTF-8",
			`a:3:{s:5:"error";s:16:"unknown function";s:16:"vested_threshold";i:5;i:0;b:1;}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, ct, body := get(t, c, tc.method, tc.path, tc.body)
			if status != tc.status || ct != tc.contentType || body != tc.want {
				t.Errorf("got %d %q %q; want %d %q %q", status, ct, body, tc.status, tc.contentType, tc.want)
			}
		})
	}
	// The server still serves after the panic.
	if status, _, _ := get(t, c, "POST", "/ok", "x=again"); status != 200 {
		t.Errorf("after a panic: status %d", status)
	}
}

func TestHealth(t *testing.T) {
	s := newTestServer()
	var ready atomic.Bool
	s.SetHealthCheck(func() []string {
		if ready.Load() {
			return nil
		}
		return []string{"plinko", "guides"}
	})
	c := serve(t, s)
	if status, _, body := get(t, c, "GET", "/healthz", ""); status != 503 || body != "unhealthy: plinko, guides\n" {
		t.Errorf("plugins not ready: %d %q", status, body)
	}
	ready.Store(true)
	if status, _, body := get(t, c, "GET", "/healthz", ""); status != 200 || body != "ok\n" {
		t.Errorf("ready: %d %q", status, body)
	}
}

// TestHealthDetailsOnOperatorListenerOnly: the game port's /healthz names
// neither the cluster nor its nodes nor a failing check's error (a
// database's host name); HealthDetails, the operator listener's, does
// (issue 36 item 5).
func TestHealthDetailsOnOperatorListenerOnly(t *testing.T) {
	s := newTestServer()
	var broken atomic.Bool
	s.AddHealthCheck("storage", func() error {
		if broken.Load() {
			return errors.New("dial tcp db1.internal:5432: connection refused")
		}
		return nil
	})
	s.SetHealthNote(func() string { return "member, 2 nodes\n" }, func() string { return "cluster prod: member, 2 nodes: hon1 hon2\n" })
	c := serve(t, s)
	if status, _, body := get(t, c, "GET", "/healthz", ""); status != 200 || body != "ok\nmember, 2 nodes\n" {
		t.Errorf("game port, healthy: %d %q", status, body)
	}
	if status, body := s.HealthDetails(); status != 200 || body != "ok\ncluster prod: member, 2 nodes: hon1 hon2\n" {
		t.Errorf("operator listener, healthy: %d %q", status, body)
	}
	broken.Store(true)
	if status, _, body := get(t, c, "GET", "/healthz", ""); status != 503 || body != "storage failing\n" {
		t.Errorf("game port, storage failing: %d %q", status, body)
	}
	if status, body := s.HealthDetails(); status != 503 || body != "storage failing: dial tcp db1.internal:5432: connection refused\n" {
		t.Errorf("operator listener, storage failing: %d %q", status, body)
	}
}

func TestMountClash(t *testing.T) {
	h := func(context.Context, *wire.Request) Response { return Response{} }
	tests := []struct {
		name   string
		first  []Route
		second []Route
	}{
		{"path twice", []Route{{Path: "/x", Area: "a", Handler: h}}, []Route{{Path: "/x", Area: "b", Handler: h}}},
		{"function twice", []Route{{Func: "vote", Area: "a", Handler: h}}, []Route{{Func: "vote", Area: "b", Handler: h}}},
		{"host's login function", nil, []Route{{Func: FuncSRPAuth, Area: "b", Handler: h}}},
		{"host's patcher path", nil, []Route{{Path: PathPatcher, Area: "b", Handler: h}}},
		{"client_requester itself", nil, []Route{{Path: PathClientRequester, Area: "b", Handler: h}}},
		{"twice in one area", nil, []Route{{Func: "f", Area: "b", Handler: h}, {Func: "f", Area: "b", Handler: h}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer()
			if err := s.Mount(tt.first...); err != nil {
				t.Fatal(err)
			}
			if err := s.Mount(tt.second...); !errors.Is(err, ErrRouteClash) {
				t.Fatalf("Mount = %v, want ErrRouteClash", err)
			}
		})
	}
	if err := newTestServer().Mount(Route{Area: "a", Handler: h}); err == nil {
		t.Fatal("a route with neither path nor function was mounted")
	}
}

// TestRouteLimitsOwnFieldCount: a path route naming its own limits takes a body and a
// field count beyond the server's, and only that path does.
func TestRouteLimitsOwnFieldCount(t *testing.T) {
	cfg := config.Default()
	cfg.Server.BodyLimit = 4 << 10
	s := New(Deps{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	count := func(_ context.Context, r *wire.Request) Response {
		return PHP(s.log, struct {
			N int `php:"n"`
		}{len(r.Form)})
	}
	if err := s.Mount(
		Route{Path: "/big", Area: "test", Handler: count, Fail: func(err error) Response { return Text("text/plain", "failed: "+err.Error()) }, Limits: wire.Limits{MaxBody: 1 << 20, MaxFields: 7000}},
		Route{Path: "/small", Area: "test", Handler: count},
	); err != nil {
		t.Fatal(err)
	}
	ln := listen(t, s)
	c := client(ln)
	var b strings.Builder
	for i := range 3000 {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString("field" + strings.Repeat("x", 20) + "=" + string(rune('a'+i%26)) + "&k" + itoa(i) + "=v")
	}
	body := b.String() // 6,000 fields, about 100 KB
	if status, _, got := get(t, c, "POST", "/big", body); status != 200 || got != `a:1:{s:1:"n";i:3001;}` {
		t.Errorf("/big: %d %q", status, got)
	}
	// Refused at its header (Content-Length) and the connection closed while
	// the body may still be on its way: post reads the reply as it writes.
	if got := post(t, ln, "/small", body); got == "" || strings.Contains(got, `"n"`) {
		t.Errorf("/small took a body past server.body_limit: %q", got)
	}
	if status, _, got := get(t, c, "POST", "/small", "a=1"); status != 200 || got != `a:1:{s:1:"n";i:1;}` {
		t.Errorf("/small: %d %q", status, got)
	}
	if got := post(t, ln, "/big", "a="+strings.Repeat("y", 2<<20)); !strings.HasPrefix(got, "failed: ") {
		t.Errorf("/big took a body past its own limit: %q", got)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
