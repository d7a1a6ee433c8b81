package server

import (
	"container/heap"
	"errors"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/limit"
)

// Accept back-off, as net/http's: 5 ms after the first temporary error,
// doubling up to 1 s while errors go on.
const (
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
)

// Reasons a connection is shed: the label values of the metric
// honmaster_http_connections_shed_total and the reason of the log line.
const (
	// ShedAddressLimit: a new connection refused because its client
	// address (its IPv6 /64) holds limits.max_connections_per_address.
	ShedAddressLimit = "address_limit"
	// ShedTotalLimit: a new connection refused because
	// limits.max_connections are open and every one of them is handling a
	// request.
	ShedTotalLimit = "total_limit"
	// ShedEvictedIdle: a quiet connection (idle keep-alive, or accepted
	// and silent) closed to make room for a new one at
	// limits.max_connections.
	ShedEvictedIdle = "evicted_idle"
	// ShedEvictedSlow: a connection whose request was still arriving,
	// the slowest of all, closed to make room for a new one at
	// limits.max_connections.
	ShedEvictedSlow = "evicted_slow"
)

// shedReason indexes shedReasons.
type shedReason int

const (
	shedAddress shedReason = iota
	shedTotal
	shedEvicted
	shedEvictedSlow
)

// shedReasons names the reasons by index.
var shedReasons = [...]string{shedAddress: ShedAddressLimit, shedTotal: ShedTotalLimit, shedEvicted: ShedEvictedIdle,
	shedEvictedSlow: ShedEvictedSlow}

// shedLogEvery is how often at most one line per reason is logged: a flood
// of connections sheds thousands a second; the line carries the counts.
const shedLogEvery = 10 * time.Second

// guardedListener keeps the server accepting whatever happens to accept, and
// bounds open connections so that strangers cannot hold them all.
//
// fasthttp's accept loop treats any accept error but a timeout as permanent
// and stops serving: one burst of idle connections that exhausts the file
// descriptors (EMFILE) used to leave HTTP dead for good. Here a temporary
// error (out of descriptors or buffers, a connection aborted before it was
// accepted) is retried after a back-off and never reaches fasthttp; only a
// closed listener ends Accept.
//
// Limits, checked as each connection is accepted:
//   - per client address (limit.AddrKey: an IPv6 client by its /64), at
//     most perAddr open connections: one more is closed at once, so that it
//     costs one descriptor for an instant, not one for the idle timeout;
//   - in total, at most max. When max are open, the new connection takes
//     the place of the one that made the least progress (conns.go: quiet,
//     or still receiving its request; bytes delivered lately, a fresh
//     connection credited), which is closed; only when every connection is
//     handling a request is the new one refused. So addresses that park
//     idle connections, or trickle requests a byte at a time, however many
//     addresses they are, cannot keep a fresh client out: its connection
//     evicts one of theirs, and theirs, reopened, evict their own slowest
//     before the fresh client that sent its request. A request still
//     arriving is bounded in time too, by server.read_timeout (fasthttp
//     sets that deadline once for the whole head and body, not per read).
//
// Every shed connection is counted by reason (Stats, the metric
// honmaster_http_connections_shed_total) and logged at most once per
// shedLogEvery per reason, with counts.
type guardedListener struct {
	net.Listener
	log *slog.Logger
	now func() time.Time

	mu      sync.Mutex
	max     int // open connections in total
	perAddr int // open connections per client address
	// proxies are the peers perAddr does not hold for: the reverse
	// proxies the server believes (server.trusted_proxies, with
	// trust_forwarded_for), each of which carries many clients over its
	// own connections. Empty when no proxy is named.
	proxies   []config.Prefix
	open      int
	byAddr    map[string]int
	evictable evictHeap // quiet and reading connections, the least progress first
	epoch     time.Time // of the progress keys (conns.go): the first key's time
	seq       uint64    // counts progress, for the order of equal keys

	shed       [len(shedReasons)]atomic.Int64
	shedLog    [len(shedReasons)]shedLogState // under mu
	lastLogged atomic.Int64                   // unix nanoseconds of the last accept-error log
}

// shedLogState is what the next log line of a reason reports.
type shedLogState struct {
	at    time.Time // of the last line
	since int64     // shed since the last line
}

func newGuardedListener(ln net.Listener, max, perAddr int, log *slog.Logger) *guardedListener {
	return &guardedListener{Listener: ln, log: log, max: max, perAddr: perAddr, now: time.Now, byAddr: map[string]int{}}
}

// setLimits changes the limits (a configuration reload) for connections
// accepted from now on; open connections beyond them stay open.
func (l *guardedListener) setLimits(max, perAddr int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.max, l.perAddr = max, perAddr
}

// setProxies names the peers perAddr does not hold for: cfg's trusted
// proxies (server.trusted_proxies) when it believes X-Forwarded-For. With
// no proxy named, every peer counts as the proxy (the setting's meaning
// before trusted_proxies), so none is exempt.
func (l *guardedListener) setProxies(cfg *config.Config) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.proxies = nil
	if cfg.Server.TrustForwardedFor {
		l.proxies = cfg.Server.TrustedProxies
	}
}

// proxy reports whether the peer of addr is one of the trusted proxies
// (l.mu held).
func (l *guardedListener) proxy(a net.Addr) bool {
	if len(l.proxies) == 0 {
		return false
	}
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return false
	}
	ip, ok := netip.AddrFromSlice(ta.IP)
	return ok && inPrefixes(ip.Unmap(), l.proxies)
}

// Accept returns the next connection within the limits.
func (l *guardedListener) Accept() (net.Conn, error) {
	var delay time.Duration
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if !temporary(err) {
				return nil, err
			}
			delay = min(max(2*delay, acceptBackoffMin), acceptBackoffMax)
			l.logAcceptError(err, delay)
			time.Sleep(delay)
			continue
		}
		delay = 0
		if gc := l.admit(c); gc != nil {
			return gc, nil
		}
	}
}

// admit wraps c when the limits let it in, evicting the connection with
// the least progress when the total is reached; otherwise it closes c and
// returns nil.
func (l *guardedListener) admit(c net.Conn) *guardedConn {
	addr := addrKey(c.RemoteAddr())
	l.mu.Lock()
	var victim *guardedConn
	refused, reason := false, shedAddress
	victimReason := shedEvicted
	switch {
	case l.byAddr[addr] >= l.perAddr && !l.proxy(c.RemoteAddr()):
		// A trusted proxy's connections carry its clients, whose own
		// limits are the proxy's to keep (SECURITY.md): holding the proxy
		// to one client's share reset players' requests behind it.
		refused = true
	case l.open >= l.max:
		if len(l.evictable) > 0 {
			// Released under l.mu: the victim's read can no longer
			// deliver bytes, nor its handler start (conns.go).
			victim = l.evictable[0]
			if victim.phase == phaseReading {
				victimReason = shedEvictedSlow
			}
			l.releaseLocked(victim)
			victim.dropped.Store(true)
		} else {
			refused, reason = true, shedTotal
		}
	}
	if refused {
		line := l.shedLocked(reason, addr)
		l.mu.Unlock()
		line.write(l.log)
		c.Close()
		return nil
	}
	gc := &guardedConn{Conn: c, l: l, addr: addr, phase: phaseQuiet}
	l.open++
	l.byAddr[addr]++
	gc.key = math.Log(acceptCredit) + l.stampLocked()
	l.seq++
	gc.seq = l.seq
	heap.Push(&l.evictable, gc)
	var line shedLine
	if victim != nil {
		line = l.shedLocked(victimReason, victim.addr)
	}
	l.mu.Unlock()
	line.write(l.log)
	if victim != nil {
		// The victim's own Close (by fasthttp, once its read fails) finds
		// its slot already given back.
		victim.Conn.Close()
	}
	return gc
}

// shedLine is a log line about shed connections, written after l.mu is
// released; the zero shedLine writes nothing.
type shedLine struct {
	reason             shedReason
	count, total, open int64
	addr               string
}

// shedLocked counts one shed connection and, when this reason's last line
// is shedLogEvery old, returns the line to log. l.mu is held.
func (l *guardedListener) shedLocked(i shedReason, addr string) shedLine {
	total := l.shed[i].Add(1)
	st := &l.shedLog[i]
	st.since++
	now := l.now()
	if !st.at.IsZero() && now.Sub(st.at) < shedLogEvery {
		return shedLine{}
	}
	line := shedLine{reason: i, count: st.since, total: total, open: int64(l.open), addr: addr}
	st.at, st.since = now, 0
	return line
}

func (sl shedLine) write(log *slog.Logger) {
	if sl.count == 0 {
		return
	}
	msg := "HTTP connection refused: limits.max_connections_per_address reached"
	switch sl.reason {
	case shedTotal:
		msg = "HTTP connection refused: limits.max_connections reached and every connection is handling a request"
	case shedEvicted:
		msg = "idle HTTP connections closed to make room: limits.max_connections reached"
	case shedEvictedSlow:
		msg = "slow HTTP requests cut to make room: limits.max_connections reached"
	}
	log.Warn(msg, "reason", shedReasons[sl.reason], "count", sl.count, "since_start", sl.total,
		"last_address", sl.addr, "open", sl.open)
}

// stampLocked is the time now in the progress keys' units (conns.go):
// half-lives since the epoch, times ln 2. l.mu is held.
func (l *guardedListener) stampLocked() float64 {
	now := l.now()
	if l.epoch.IsZero() {
		l.epoch = now
	}
	return float64(now.Sub(l.epoch)) / float64(progressHalfLife) * math.Ln2
}

// progress counts n bytes read from c, which is reading a request from
// now on (unless it is handling one), and reports true; or it reports
// false when c is already released (evicted, closed at shutdown or closed
// by fasthttp): then c must not deliver the bytes.
func (l *guardedListener) progress(c *guardedConn, n int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.released {
		return false
	}
	if c.phase == phaseHandling {
		return true
	}
	c.key = addProgress(c.key, n, l.stampLocked())
	l.seq++
	c.seq = l.seq
	c.phase = phaseReading
	if c.idx >= 0 {
		heap.Fix(&l.evictable, c.idx)
	} else {
		heap.Push(&l.evictable, c)
	}
	return true
}

// handle makes c handling (its handler starts) and reports true, or
// reports false when c is already released.
func (l *guardedListener) handle(c *guardedConn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.released {
		return false
	}
	if c.idx >= 0 {
		heap.Remove(&l.evictable, c.idx)
	}
	c.phase = phaseHandling
	c.handling.Store(true)
	return true
}

// idle makes c quiet: its reply is written and fasthttp reads it for the
// next request.
func (l *guardedListener) idle(c *guardedConn) { l.evictableAgain(c, phaseQuiet) }

// reading makes c reading: after a reply, fasthttp goes on to the next,
// pipelined request without a read.
func (l *guardedListener) reading(c *guardedConn) { l.evictableAgain(c, phaseReading) }

// evictableAgain puts a handling c back among the evictable connections,
// in phase p, with the progress it had (decayed since).
func (l *guardedListener) evictableAgain(c *guardedConn, p phase) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.released || c.phase != phaseHandling {
		return
	}
	c.phase = p
	c.handling.Store(false)
	heap.Push(&l.evictable, c)
}

// release gives c's slot back, once.
func (l *guardedListener) release(c *guardedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.releaseLocked(c)
}

func (l *guardedListener) releaseLocked(c *guardedConn) {
	if c.released {
		return
	}
	c.released = true
	if c.idx >= 0 {
		heap.Remove(&l.evictable, c.idx)
	}
	l.open--
	if n := l.byAddr[c.addr] - 1; n > 0 {
		l.byAddr[c.addr] = n
	} else {
		delete(l.byAddr, c.addr)
	}
}

// closeQuiet closes every quiet connection, for a shutdown. Each is
// released under l.mu, as admit does with a victim, so that none of them
// can deliver a request afterwards (conns.go): no request is cut half-way.
func (l *guardedListener) closeQuiet() {
	l.mu.Lock()
	var quiet []*guardedConn
	for _, c := range l.evictable {
		if c.phase == phaseQuiet {
			quiet = append(quiet, c)
		}
	}
	for _, c := range quiet {
		l.releaseLocked(c) // takes it off l.evictable
		c.dropped.Store(true)
	}
	l.mu.Unlock()
	for _, c := range quiet {
		c.Conn.Close()
	}
}

// logAcceptError logs at most one accept error a second: under descriptor
// exhaustion accept fails hundreds of times a second.
func (l *guardedListener) logAcceptError(err error, delay time.Duration) {
	now := time.Now().UnixNano()
	last := l.lastLogged.Load()
	if now-last < int64(time.Second) || !l.lastLogged.CompareAndSwap(last, now) {
		return
	}
	l.log.Error("accept failed; retrying", "err", err, "retry_in", delay, "open_connections", l.Open())
}

// Open returns how many accepted connections are open.
func (l *guardedListener) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// ConnStats are the game listener's connection figures.
type ConnStats struct {
	Open int
	// Shed counts the connections refused or evicted since start, by
	// reason (ShedAddressLimit, ShedTotalLimit, ShedEvictedIdle,
	// ShedEvictedSlow).
	Shed map[string]int64
}

// Stats returns the listener's figures.
func (l *guardedListener) Stats() ConnStats {
	st := ConnStats{Open: l.Open(), Shed: make(map[string]int64, len(shedReasons))}
	for i, r := range shedReasons {
		st.Shed[r] = l.shed[i].Load()
	}
	return st
}

// temporary reports whether an accept error is worth retrying: the process
// or system is out of descriptors or memory, or one connection went away
// before it was accepted.
func temporary(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EAGAIN, syscall.EINTR, syscall.EPROTO, syscall.EPERM} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var te interface{ Temporary() bool }
	return errors.As(err, &te) && te.Temporary()
}

// addrKey is the per-address limit key of a connection's client address
// (limit.AddrKey: its IPv6 /64).
func addrKey(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		if ip, ok := netip.AddrFromSlice(ta.IP); ok {
			return limit.AddrKeyOf(ip)
		}
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return limit.AddrKey(host)
}
