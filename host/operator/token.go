package operator

import (
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/honmaster/masterserver/host/limit"
)

// Failed token checks (a missing or wrong bearer token) are throttled per
// client address (IPv6 per /64: one host owns a whole /64) with a token
// bucket that only failures spend: past the burst, requests from that
// address are answered 429 without looking at their token, the right one
// included, until the bucket refills. Otherwise a throttled guesser could
// still tell a right guess from a wrong one.
//
// Every failure is counted in the log, but never more than one line per
// address per interval: an address's first failure is logged at once
// (failures=1); the failures that follow within the interval are counted
// and logged together when it ends (failures, throttled), and so on while
// they go on. At most maxLines addresses get a line of their own per
// interval; the others are summed in one line. The token sent is never
// logged.

// maxLines bounds the lines logged per interval, over all addresses.
const maxLines = 32

// maxTracked bounds the addresses whose failures are counted one by one;
// past it, failures are counted in the summary line only.
const maxTracked = 4096

// tokenGuard checks the operator token, throttles and logs failures.
type tokenGuard struct {
	want     []byte // "Bearer " + token; nil: no token, everything refused
	throttle *limit.Keyed
	log      *slog.Logger
	every    time.Duration
	// after runs f after d (time.AfterFunc); tests run flush themselves.
	after func(d time.Duration, f func())
	// addrOf is the client's address (Server.ClientAddr).
	addrOf func(*http.Request) string

	mu      sync.Mutex
	counts  map[string]*tally // addresses with a line in the current interval
	others  tally             // failures of addresses without a line of their own
	lines   int               // lines logged in the current interval
	pending bool              // a flush is scheduled
}

// tally counts one address's failures since its last line.
type tally struct {
	failed    int // wrong or missing token, checked
	throttled int // refused unchecked (429)
}

func (t tally) total() int { return t.failed + t.throttled }

func newTokenGuard(token string, r limit.Rate, now func() time.Time, every time.Duration, log *slog.Logger) *tokenGuard {
	g := &tokenGuard{throttle: limit.New(r, 0, now), log: log, every: every, counts: map[string]*tally{},
		after:  func(d time.Duration, f func()) { time.AfterFunc(d, f) },
		addrOf: func(r *http.Request) string { return r.RemoteAddr }}
	if token != "" {
		g.want = []byte("Bearer " + token)
	}
	return g
}

// wrap lets only requests bearing the token reach h.
func (g *tokenGuard) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		addr := addrKey(g.addrOf(r))
		if ok, wait := g.throttle.Check(addr); !ok {
			g.failed(addr, true)
			w.Header().Set("Retry-After", fmt.Sprint(int(wait.Round(time.Second).Seconds())+1))
			http.Error(w, "too many requests without the right operator token from your address; try again later", http.StatusTooManyRequests)
			return
		}
		if g.want == nil || subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), g.want) != 1 {
			g.throttle.Charge(addr)
			g.failed(addr, false)
			w.Header().Set("WWW-Authenticate", `Bearer realm="operator"`)
			http.Error(w, "operator token required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// failed counts a failure of addr and logs it when addr has no line in the
// current interval yet.
func (g *tokenGuard) failed(addr string, throttled bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.pending {
		g.pending = true
		g.after(g.every, g.flush)
	}
	t := g.counts[addr]
	switch {
	case t != nil:
	case len(g.counts) < maxTracked && g.lines < maxLines:
		// The address's first failure in this interval: one line now.
		g.counts[addr] = &tally{}
		g.lines++
		failures, throttles := 1, 0
		if throttled {
			failures, throttles = 0, 1
		}
		g.log.Warn("operator token refused", "addr", addr, "failures", failures, "throttled", throttles)
		return
	default:
		t = &g.others
	}
	if throttled {
		t.throttled++
	} else {
		t.failed++
	}
}

// flush ends the interval: it logs the failures counted since each
// address's last line (the most first, at most maxLines lines, the rest
// summed in one), and forgets the addresses that had none.
func (g *tokenGuard) flush() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending, g.lines = false, 0
	var busy []string
	for addr, t := range g.counts {
		if t.total() == 0 {
			delete(g.counts, addr)
			continue
		}
		busy = append(busy, addr)
	}
	sort.Slice(busy, func(i, j int) bool {
		a, b := g.counts[busy[i]].total(), g.counts[busy[j]].total()
		return a > b || (a == b && busy[i] < busy[j])
	})
	rest := g.others
	for i, addr := range busy {
		t := g.counts[addr]
		if i < maxLines-1 { // one line is kept for the rest
			g.log.Warn("operator token refused", "addr", addr, "failures", t.failed, "throttled", t.throttled, "within", g.every)
			g.lines++
		} else {
			rest.failed += t.failed
			rest.throttled += t.throttled
		}
		*t = tally{}
	}
	if rest.total() > 0 {
		g.log.Warn("operator token refused from other addresses", "failures", rest.failed, "throttled", rest.throttled, "within", g.every)
		g.lines++
	}
	g.others = tally{}
	if len(g.counts) > 0 {
		// Addresses still failing keep their line per interval; the
		// next flush forgets the ones that stopped.
		g.pending = true
		g.after(g.every, g.flush)
	}
}

// addrKey is the key of a client address (an IP, or a request's
// RemoteAddr, host:port) for per-address limits: the IP, and for IPv6 its /64 (a
// host usually owns a whole /64, so its addresses count as one).
func addrKey(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	return limit.AddrKey(host)
}
