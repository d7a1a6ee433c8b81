package console_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/console"
	"github.com/honmaster/masterserver/host/limit"
)

// forwardedFor sets X-Forwarded-For on every request, as a proxy does.
type forwardedFor struct {
	rt  http.RoundTripper
	xff string
}

func (f forwardedFor) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-For", f.xff)
	return f.rt.RoundTrip(r)
}

// viaProxy is a console client whose connections come from the loopback
// address peer and carry X-Forwarded-For: xff, as requests through a
// reverse proxy at peer (or a client at peer that writes the header
// itself).
func viaProxy(t *testing.T, peer, xff string) *http.Client {
	t.Helper()
	c := clientFrom(t, peer)
	c.Transport = forwardedFor{c.Transport, xff}
	return c
}

// lockedBuffer is a log's destination that the server's goroutines and the
// test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

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

// The console reads the client's address as the game listener does
// (server.trust_forwarded_for, server.trusted_proxies). Before, it took the
// connection's peer alone: behind the documented proxies every operator
// was the proxy's address, so all shared one per-address budget, the
// proxy's address was trusted for every login an operator signed in as
// (which switched the per-login limit off for everyone), and every log and
// audit line said addr=127.0.0.1.
func TestSignInLimitsPerForwardedAddress(t *testing.T) {
	perAddr := console.Deps{SignInPerAddress: limit.Rate{Burst: 2, Every: time.Hour},
		SignInPerLogin: limit.Rate{Burst: 100, Every: time.Hour}}
	const proxy, other = "127.0.0.2", "127.0.0.3"
	// guesses signs in with a wrong password for a fresh login (only the
	// per-address budget applies) and returns the statuses.
	n := 0
	guesses := func(t *testing.T, e *env, c *http.Client, k int) []int {
		t.Helper()
		var out []int
		for range k {
			n++
			status, _ := e.signIn(t, c, fmt.Sprint("ghost", n), "wrong")
			out = append(out, status)
		}
		return out
	}
	want := func(t *testing.T, what string, got []int, statuses ...int) {
		t.Helper()
		if len(got) != len(statuses) {
			t.Fatalf("%s: %v, want %v", what, got, statuses)
		}
		for i := range got {
			if got[i] != statuses[i] {
				t.Errorf("%s: %v, want %v", what, got, statuses)
				return
			}
		}
	}
	const unauth, limited = http.StatusUnauthorized, http.StatusTooManyRequests

	t.Run("trusted", func(t *testing.T) {
		d := perAddr
		d.TrustForwardedFor, d.TrustedProxies = true, prefixes(t, proxy)
		var log lockedBuffer
		d.Log = slog.New(slog.NewTextHandler(&log, nil))
		e := newEnv(t, d)
		want(t, "first client through the proxy", guesses(t, e, viaProxy(t, proxy, "198.51.100.1"), 3), unauth, unauth, limited)
		want(t, "second client through the proxy", guesses(t, e, viaProxy(t, proxy, "198.51.100.2"), 2), unauth, unauth)
		if !strings.Contains(log.String(), "addr=198.51.100.1") || strings.Contains(log.String(), "addr="+proxy) {
			t.Errorf("the log does not name the forwarded address:\n%s", log.String())
		}
		// A peer that is not a trusted proxy: its header is ignored.
		want(t, "spoofed header, first", guesses(t, e, viaProxy(t, other, "198.51.100.3"), 2), unauth, unauth)
		want(t, "spoofed header, another address claimed", guesses(t, e, viaProxy(t, other, "198.51.100.4"), 1), limited)
	})
	t.Run("not trusted", func(t *testing.T) {
		e := newEnv(t, perAddr)
		want(t, "first client through the proxy", guesses(t, e, viaProxy(t, proxy, "198.51.100.1"), 2), unauth, unauth)
		want(t, "second client through the proxy, spoofed header ignored", guesses(t, e, viaProxy(t, proxy, "198.51.100.2"), 1), limited)
	})
	// An operator's sign-in through the proxy trusts the operator's own
	// address for the login, not the proxy's: others behind the proxy are
	// still held to the login's budget.
	t.Run("trust per forwarded address", func(t *testing.T) {
		d := console.Deps{SignInPerAddress: limit.Rate{Burst: 10, Every: time.Hour},
			SignInPerLogin: limit.Rate{Burst: 3, Every: time.Hour}, TrustForwardedFor: true, TrustedProxies: prefixes(t, proxy)}
		e := newEnv(t, d)
		if status, page := e.signIn(t, viaProxy(t, proxy, "198.51.100.5"), "admin", "admin-pw"); status != http.StatusOK {
			t.Fatalf("the operator's sign-in through the proxy: %d\n%s", status, page)
		}
		attacker := viaProxy(t, proxy, "198.51.100.6")
		var got []int
		for range 4 {
			status, _ := e.signIn(t, attacker, "admin", "wrong")
			got = append(got, status)
		}
		want(t, "another client through the proxy, guessing the operator's password", got, unauth, unauth, unauth, limited)
		if status, page := e.signIn(t, viaProxy(t, proxy, "198.51.100.5"), "admin", "admin-pw"); status != http.StatusOK {
			t.Fatalf("the operator, from their own address through the proxy: %d\n%s", status, page)
		}
	})
}
