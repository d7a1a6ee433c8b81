package operator

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/limit"
)

const testToken = "secret-secret-secret"

// call sends one request to s's handler from addr (no network) and
// returns its status. It names the listener by its address, as a client
// of the loopback listener does (httptest's own example.com would be
// refused: hosts.go).
func call(s *Server, addr, path, auth string) int {
	req := httptest.NewRequest("GET", "http://127.0.0.1:8081"+path, nil)
	req.RemoteAddr = addr
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	rec := httptest.NewRecorder()
	s.srv.Handler.ServeHTTP(rec, req)
	return rec.Code
}

// TestProfilesNeedTokenWhenRemote: with operator.allow_remote the Go
// profiles are served only with the token; on loopback they stay open.
func TestProfilesNeedTokenWhenRemote(t *testing.T) {
	for _, remote := range []bool{false, true} {
		s := New(Options{Token: testToken, Remote: remote, Log: slog.New(slog.DiscardHandler)})
		for _, path := range []string{"/debug/pprof/", "/debug/pprof/cmdline", "/debug/pprof/symbol", "/debug/pprof/goroutine?debug=1"} {
			want := http.StatusOK
			if remote {
				want = http.StatusUnauthorized
			}
			if got := call(s, "192.0.2.1:5000", path, ""); got != want {
				t.Errorf("remote %v: %s without the token: %d, want %d", remote, path, got, want)
			}
			if got := call(s, "192.0.2.2:5000", path, "Bearer "+testToken); got != http.StatusOK {
				t.Errorf("remote %v: %s with the token: %d, want 200", remote, path, got)
			}
		}
	}
}

// TestTokenGuessesThrottledAndLogged: an address guessing the token is
// answered 429 past the burst (the right token too), other addresses are
// not, the guesses are logged as one line per address per interval with
// their count, and the guessed token never reaches the log.
func TestTokenGuessesThrottledAndLogged(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var logBuf bytes.Buffer
	s := New(Options{Token: testToken, TokenFailures: limit.Rate{Burst: 10, Every: time.Minute}, Now: func() time.Time { return now },
		Log: slog.New(slog.NewTextHandler(&logBuf, nil))})
	var scheduled []time.Duration
	s.guard.after = func(d time.Duration, _ func()) { scheduled = append(scheduled, d) }
	s.HandleAPI("GET /api", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "yes") }))

	const guesses = 2000
	codes := map[int]int{}
	for i := range guesses {
		codes[call(s, "127.0.0.5:40000", "/api", "Bearer guess-"+strings.Repeat("x", i%7))]++
	}
	if codes[http.StatusUnauthorized] != 10 || codes[http.StatusTooManyRequests] != guesses-10 {
		t.Fatalf("answers to %d guesses: %v, want 10 401s and the rest 429", guesses, codes)
	}
	if got := call(s, "127.0.0.5:40001", "/api", "Bearer "+testToken); got != http.StatusTooManyRequests {
		t.Errorf("the right token from the throttled address: %d, want 429", got)
	}
	if got := call(s, "127.0.0.6:40000", "/api", "Bearer "+testToken); got != http.StatusOK {
		t.Errorf("the right token from another address: %d, want 200", got)
	}
	// IPv6: one /64 is one address.
	for i := range 10 {
		call(s, fmt.Sprintf("[2001:db8:1:2::%x]:1", i), "/api", "")
	}
	if got := call(s, "[2001:db8:1:2:ffff::1]:1", "/api", "Bearer "+testToken); got != http.StatusTooManyRequests {
		t.Errorf("the right token from the throttled /64: %d, want 429", got)
	}

	lines := func() []string {
		out := strings.Split(strings.TrimSpace(logBuf.String()), "\n")
		logBuf.Reset()
		return out
	}
	first := lines()
	if len(first) != 2 || !strings.Contains(first[0], "addr=127.0.0.5 failures=1") || !strings.Contains(first[1], "addr=2001:db8:1:2::/64 failures=1") {
		t.Fatalf("lines before the interval ends:\n%s", strings.Join(first, "\n"))
	}
	if len(scheduled) != 1 || scheduled[0] != time.Minute {
		t.Fatalf("flushes scheduled: %v, want one after a minute", scheduled)
	}

	s.guard.flush() // the interval ends
	ended := lines()
	// 127.0.0.5: 2000 guesses and the right token, of which 1 already
	// logged: 9 checked, 1991 throttled. The /64: 10 guesses and the right
	// token: 9 checked, 1 throttled.
	want := []string{"addr=127.0.0.5 failures=9 throttled=1991 within=1m0s", "addr=2001:db8:1:2::/64 failures=9 throttled=1 within=1m0s"}
	if len(ended) != len(want) {
		t.Fatalf("lines at the interval's end:\n%s", strings.Join(ended, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(ended[i], w) {
			t.Errorf("line %d: %s\nwant %s", i, ended[i], w)
		}
	}
	// The next interval: nothing more from them, nothing logged, and the
	// addresses are forgotten; a later failure is logged at once again.
	s.guard.flush()
	if l := lines(); len(l) != 1 || l[0] != "" {
		t.Errorf("lines of a quiet interval: %q", l)
	}
	now = now.Add(time.Minute)
	if got := call(s, "127.0.0.5:40000", "/api", "Bearer guess"); got != http.StatusUnauthorized {
		t.Errorf("a guess a minute later: %d, want 401 (one token back)", got)
	}
	if l := lines(); len(l) != 1 || !strings.Contains(l[0], "addr=127.0.0.5 failures=1") {
		t.Errorf("a failure after a quiet interval: %q", l)
	}
	all := logBuf.String()
	if strings.Contains(all, "guess") || strings.Contains(all, testToken) {
		t.Error("a token reached the log")
	}
}

// TestTokenFailureLinesBounded: failures from many addresses are all
// counted, in at most maxLines lines per interval (the addresses past it
// summed in one line).
func TestTokenFailureLinesBounded(t *testing.T) {
	var logBuf bytes.Buffer
	s := New(Options{Token: testToken, Log: slog.New(slog.NewTextHandler(&logBuf, nil))})
	s.guard.after = func(time.Duration, func()) {}
	s.HandleAPI("GET /api", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	const addrs, each = 200, 2
	for i := range addrs {
		for range each {
			if got := call(s, fmt.Sprintf("10.0.%d.%d:1", i/250, i%250), "/api", ""); got != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", got)
			}
		}
	}
	failures := func() (lines, n int) {
		for _, l := range strings.Split(strings.TrimSpace(logBuf.String()), "\n") {
			lines++
			for _, f := range strings.Fields(l) {
				if v, ok := strings.CutPrefix(f, "failures="); ok {
					k, err := strconv.Atoi(v)
					if err != nil {
						t.Fatalf("line %q", l)
					}
					n += k
				}
			}
		}
		logBuf.Reset()
		return lines, n
	}
	lines, n := failures()
	if lines != maxLines {
		t.Errorf("%d lines during the interval, want %d (the first addresses' first failures)", lines, maxLines)
	}
	s.guard.flush()
	lines2, n2 := failures()
	if lines2 > maxLines || n+n2 != addrs*each {
		t.Errorf("interval's end: %d lines; failures counted %d+%d, want %d in all", lines2, n, n2, addrs*each)
	}
}

func TestAddrKey(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.1:5000":              "192.0.2.1",
		"[::ffff:192.0.2.1]:5000":     "192.0.2.1",
		"[2001:db8:1:2:3:4:5:6]:5000": "2001:db8:1:2::/64",
		"[fe80::1%eth0]:5000":         "fe80::/64",
		"[::1]:5000":                  "::/64",
		"not an address":              "not an address",
		"[2001:db8:1:3::1]:1":         "2001:db8:1:3::/64",
	} {
		if got := addrKey(in); got != want {
			t.Errorf("addrKey(%q) = %q, want %q", in, got, want)
		}
	}
}
