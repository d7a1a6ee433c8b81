package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
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
	ln := fasthttputil.NewInmemoryListener()
	go s.Serve(ln)
	t.Cleanup(func() { s.Shutdown(context.Background()); ln.Close() })
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
	s.Mount(
		Route{Path: "/ok", Area: "test", Handler: func(_ context.Context, r *wire.Request) Response {
			return PHP(s.log, struct {
				Echo string `php:"echo"`
			}{r.Form.Get("x")})
		}},
		Route{Path: "/panics", Area: "test", Fail: failShape, Handler: func(context.Context, *wire.Request) Response {
			panic("handler bug")
		}},
	)
	c := serve(t, s)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		contentType, want        string
	}{
		{"handler", "POST", "/ok", "x=hi", 200, "text/html; charset=UTF-8", `a:1:{s:4:"echo";s:2:"hi";}`},
		{"panic answers the route's failure shape", "POST", "/panics", "", 200, "text/plain", "failed: internal error: handler bug"},
		{"unknown path", "POST", "/nope", "", 404, "text/html; charset=UTF-8",
			`a:3:{s:5:"error";s:18:"unknown path /nope";s:16:"vested_threshold";i:5;i:0;b:1;}`},
		{"unknown function", "POST", "/client_requester.php?f=zzz", "", 404, "text/html; charset=UTF-8",
			`a:3:{s:5:"error";s:22:"unknown function "zzz"";s:16:"vested_threshold";i:5;i:0;b:1;}`},
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
	s.SetReadyCheck(ready.Load)
	c := serve(t, s)
	if status, _, body := get(t, c, "GET", "/healthz", ""); status != 503 || body != "starting\n" {
		t.Errorf("plugins not ready: %d %q", status, body)
	}
	ready.Store(true)
	if status, _, body := get(t, c, "GET", "/healthz", ""); status != 200 || body != "ok\n" {
		t.Errorf("ready: %d %q", status, body)
	}
}

func TestMountTwicePanics(t *testing.T) {
	s := newTestServer()
	r := Route{Path: "/x", Area: "a", Handler: func(context.Context, *wire.Request) Response { return Response{} }}
	s.Mount(r)
	defer func() {
		if recover() == nil {
			t.Error("mounting a path twice did not panic")
		}
	}()
	s.Mount(r)
}

func TestForwardedFor(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.7":                    "203.0.113.7",
		"10.0.0.1, 198.51.100.2":         "198.51.100.2", // the hop the trusted proxy appended
		"spoofed, not-an-ip":             "",
		" 2001:db8::1 ":                  "2001:db8::1",
		"1.2.3.4,5.6.7.8, 192.0.2.44   ": "192.0.2.44",
	} {
		if got := forwardedFor(in); got != want {
			t.Errorf("forwardedFor(%q) = %q, want %q", in, got, want)
		}
	}
}
