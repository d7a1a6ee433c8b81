package server

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/wire"
)

func prefixes(t *testing.T, ss ...string) []config.Prefix {
	t.Helper()
	out := make([]config.Prefix, len(ss))
	for i, s := range ss {
		if err := out[i].UnmarshalText([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestClientAddress: the client is the right-most X-Forwarded-For address
// that is not a trusted proxy, over every line of the header, in the
// header shapes the common proxies send. The client (6.6.6.6 being the
// address it claims) never picks its own.
func TestClientAddress(t *testing.T) {
	gcp := prefixes(t, "35.191.0.0/16", "130.211.0.0/22")
	chain := prefixes(t, "10.0.0.0/8", "192.0.2.10")
	for _, tt := range []struct {
		name    string
		peer    string
		lines   []string
		trusted []config.Prefix
		want    string
	}{
		// HAProxy "option forwardfor": a line of its own after the client's.
		{"haproxy adds a line", "127.0.0.1", []string{"6.6.6.6", "203.0.113.7"}, nil, "203.0.113.7"},
		{"haproxy, client sent a list", "127.0.0.1", []string{"6.6.6.6, 7.7.7.7", "203.0.113.7"}, nil, "203.0.113.7"},
		// nginx $proxy_add_x_forwarded_for, AWS ALB: appended to the one line.
		{"nginx appends", "127.0.0.1", []string{"6.6.6.6, 203.0.113.7"}, nil, "203.0.113.7"},
		// Caddy (and nginx with $remote_addr): the client's header replaced.
		{"caddy replaces", "127.0.0.1", []string{"203.0.113.7"}, nil, "203.0.113.7"},
		// Google Cloud's balancer appends the client and itself.
		{"google cloud balancer", "35.191.3.4", []string{"6.6.6.6, 203.0.113.7, 35.191.3.4"}, gcp, "203.0.113.7"},
		{"google cloud, untrusted peer", "198.51.100.1", []string{"6.6.6.6, 203.0.113.7"}, gcp, ""},
		// A cloud balancer, then nginx on the private network.
		{"balancer then nginx", "10.0.0.5", []string{"6.6.6.6, 203.0.113.7, 192.0.2.10"}, chain, "203.0.113.7"},
		{"balancer adds a line, nginx appends", "10.0.0.5", []string{"6.6.6.6", "203.0.113.7, 192.0.2.10"}, chain, "203.0.113.7"},
		// A client that claims a trusted address gains nothing but that address.
		{"client claims a proxy's address", "10.0.0.5", []string{"10.9.9.9, 192.0.2.10"}, chain, "10.9.9.9"},
		// Ports (Azure's Application Gateway), IPv6, mapped IPv4.
		{"with a port", "127.0.0.1", []string{"6.6.6.6, 203.0.113.7:51234"}, nil, "203.0.113.7"},
		{"ipv6 with a port", "127.0.0.1", []string{"[2001:db8::7]:443"}, nil, "2001:db8::7"},
		{"ipv6", "127.0.0.1", []string{"6.6.6.6,2001:db8::7"}, nil, "2001:db8::7"},
		{"mapped ipv4", "127.0.0.1", []string{"::ffff:203.0.113.7"}, nil, "203.0.113.7"},
		// Nothing usable: the caller keeps the peer.
		{"no header", "127.0.0.1", nil, nil, ""},
		{"garbage", "127.0.0.1", []string{"unknown"}, nil, ""},
		{"garbage left of a proxy", "10.0.0.5", []string{"unknown, 192.0.2.10"}, chain, "192.0.2.10"},
		{"a zone", "127.0.0.1", []string{"fe80::1%eth0"}, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var lines [][]byte
			for _, l := range tt.lines {
				lines = append(lines, []byte(l))
			}
			if got := clientAddress(tt.peer, lines, tt.trusted); got != tt.want {
				t.Errorf("clientAddress(%s, %q) = %q, want %q", tt.peer, tt.lines, got, tt.want)
			}
		})
	}
	var p config.Prefix
	if err := p.UnmarshalText([]byte("10.0.0.300")); err == nil {
		t.Error("a proxy address of 10.0.0.300 was accepted")
	}
}

// TestForwardedForEveryLine: the server reads every X-Forwarded-For line of
// a request, not just the first (a client's own line came first behind
// HAProxy and named the client's address of choice).
func TestForwardedForEveryLine(t *testing.T) {
	cfg := config.Default()
	cfg.Server.TrustForwardedFor = true
	s := New(Deps{Config: cfg, Logger: newTestServer().log})
	var mu sync.Mutex
	var seen []string
	if err := s.Mount(Route{Path: "/who", Area: "test", Handler: func(_ context.Context, r *wire.Request) Response {
		mu.Lock()
		seen = append(seen, r.RemoteIP)
		mu.Unlock()
		return Text("text/plain", r.RemoteIP)
	}}); err != nil {
		t.Fatal(err)
	}
	c := serve(t, s)
	req, _ := http.NewRequest("GET", "http://host/who", nil)
	req.Header.Add("X-Forwarded-For", "6.6.6.6")
	req.Header.Add("X-Forwarded-For", "203.0.113.7")
	r, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(seen, ",") != "203.0.113.7" {
		t.Errorf("client address %q, want 203.0.113.7 (the proxy's line)", seen)
	}
}

// TestClientAddressOfNetHTTP: ClientAddress, the operator listener's form
// of clientAddress, reads a net/http RemoteAddr and keeps the peer when the
// header is not trusted or not to be believed.
func TestClientAddressOfNetHTTP(t *testing.T) {
	proxy := prefixes(t, "127.0.0.2")
	for _, tt := range []struct {
		name    string
		peer    string
		lines   []string
		trust   bool
		trusted []config.Prefix
		want    string
	}{
		{"not trusted", "127.0.0.2:5123", []string{"203.0.113.7"}, false, nil, "127.0.0.2"},
		{"trusted, the peer is the proxy", "127.0.0.2:5123", []string{"6.6.6.6", "203.0.113.7"}, true, nil, "203.0.113.7"},
		{"from a listed proxy", "127.0.0.2:5123", []string{"203.0.113.7"}, true, proxy, "203.0.113.7"},
		{"from a peer that is not a listed proxy", "127.0.0.3:5123", []string{"203.0.113.7"}, true, proxy, "127.0.0.3"},
		{"no header", "[::1]:5123", nil, true, nil, "::1"},
		{"garbage", "127.0.0.2:5123", []string{"unknown"}, true, nil, "127.0.0.2"},
		{"a peer without a port", "127.0.0.2", []string{"203.0.113.7"}, true, nil, "203.0.113.7"},
		// net/http keeps a link-local peer's zone; a zoned address was
		// never in a prefix, so such a proxy was never trusted.
		{"a link-local proxy with its zone", "[fe80::1%eth0]:5123", []string{"203.0.113.7"}, true, prefixes(t, "fe80::/10"), "203.0.113.7"},
	} {
		if got := ClientAddress(tt.peer, tt.lines, tt.trust, tt.trusted); got != tt.want {
			t.Errorf("%s: ClientAddress(%s, %q) = %q, want %q", tt.name, tt.peer, tt.lines, got, tt.want)
		}
	}
}

// TestUnreadRequestsClientBehindProxy: with server.trust_forwarded_for,
// every request's access line and metrics name the client X-Forwarded-For
// names, also when the request could not be read: a malformed body, a
// body refused as too large, /healthz. These named the proxy's address.
func TestUnreadRequestsClientBehindProxy(t *testing.T) {
	cfg := config.Default()
	cfg.Server.TrustForwardedFor = true
	s := New(Deps{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	if err := s.Mount(Route{Path: "/ok", Area: "test", Handler: func(context.Context, *wire.Request) Response { return Text("text/plain", "ok") }}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var clients []string
	s.SetObserver(func(r *RequestInfo) { mu.Lock(); clients = append(clients, r.Route+" "+r.Client); mu.Unlock() })
	ln := listen(t, s)
	heads := []string{
		"POST /ok HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n",         // served
		"POST /ok HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5\r\n",         // a=%zz: malformed
		"POST /ok HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 999999999\r\n", // too large
		"GET /healthz HTTP/1.1\r\nHost: h\r\n",
	}
	bodies := []string{"a=1", "a=%zz", fieldsBody(1, 8<<10), ""} // the server reads 8 KiB of a body before it refuses it
	for i, head := range heads {
		conn, err := ln.Dial()
		if err != nil {
			t.Fatal(err)
		}
		go io.WriteString(conn, head+"X-Forwarded-For: 203.0.113.7\r\n\r\n"+bodies[i])
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		conn.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(clients) != len(heads) {
		t.Fatalf("observed %d requests, want %d: %q", len(clients), len(heads), clients)
	}
	for i, got := range clients {
		if !strings.HasSuffix(got, " 203.0.113.7") {
			t.Errorf("request %d (%q) observed from another client than the forwarded 203.0.113.7", i, got)
		}
	}
}
