package server

import (
	"container/list"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

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
	// limits.max_connections are open and none of them is quiet.
	ShedTotalLimit = "total_limit"
	// ShedEvictedIdle: a quiet connection (idle keep-alive, or accepted
	// and silent) closed to make room for a new one at
	// limits.max_connections.
	ShedEvictedIdle = "evicted_idle"
)

// shedReason indexes shedReasons.
type shedReason int

const (
	shedAddress shedReason = iota
	shedTotal
	shedEvicted
)

// shedReasons names the reasons by index.
var shedReasons = [...]string{shedAddress: ShedAddressLimit, shedTotal: ShedTotalLimit, shedEvicted: ShedEvictedIdle}

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
//     the place of the oldest quiet one (see conns.go: idle keep-alive, or
//     accepted and silent), which is closed; only when none is quiet is the
//     new one refused. So addresses that park idle connections up to their
//     own limit, however many addresses they are, cannot keep a fresh
//     client out: its connection evicts one of theirs. What still refuses
//     clients is max connections all carrying requests at once, which
//     server.read_timeout bounds in time (SECURITY.md).
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
	open    int
	byAddr  map[string]int
	quiet   list.List // of *guardedConn, the oldest quiet first

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

// admit wraps c when the limits let it in, evicting the oldest quiet
// connection when the total is reached; otherwise it closes c and returns
// nil.
func (l *guardedListener) admit(c net.Conn) *guardedConn {
	addr := addrKey(c.RemoteAddr())
	l.mu.Lock()
	var victim *guardedConn
	refused, reason := false, shedAddress
	switch {
	case l.byAddr[addr] >= l.perAddr:
		refused = true
	case l.open >= l.max:
		if e := l.quiet.Front(); e != nil {
			// Released under l.mu: the victim's read can no longer make
			// it busy (conns.go).
			victim = e.Value.(*guardedConn)
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
	gc := &guardedConn{Conn: c, l: l, addr: addr}
	l.open++
	l.byAddr[addr]++
	gc.elem = l.quiet.PushBack(gc)
	gc.quiet.Store(true)
	var line shedLine
	if victim != nil {
		line = l.shedLocked(shedEvicted, victim.addr)
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
		msg = "HTTP connection refused: limits.max_connections reached and every connection is busy"
	case shedEvicted:
		msg = "idle HTTP connections closed to make room: limits.max_connections reached"
	}
	log.Warn(msg, "reason", shedReasons[sl.reason], "count", sl.count, "since_start", sl.total,
		"last_address", sl.addr, "open", sl.open)
}

// busy takes c off the quiet list, a request coming in, and reports true;
// or it reports false when c is already released (evicted, closed at
// shutdown or closed by fasthttp): then c must not deliver the request.
func (l *guardedListener) busy(c *guardedConn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.released {
		return false
	}
	if c.elem != nil {
		l.quiet.Remove(c.elem)
		c.elem = nil
	}
	c.quiet.Store(false)
	return true
}

// idle puts c at the end of the quiet list: its reply is written and
// fasthttp reads it for the next request.
func (l *guardedListener) idle(c *guardedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.released || c.elem != nil {
		return
	}
	c.elem = l.quiet.PushBack(c)
	c.quiet.Store(true)
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
	// c.quiet stays as it is: a read of a quiet c racing its release
	// asks busy, which refuses.
	if c.elem != nil {
		l.quiet.Remove(c.elem)
		c.elem = nil
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
// can become busy afterwards (conns.go): no request is cut half-way.
func (l *guardedListener) closeQuiet() {
	l.mu.Lock()
	var quiet []*guardedConn
	for e := l.quiet.Front(); e != nil; e = l.quiet.Front() {
		c := e.Value.(*guardedConn)
		l.releaseLocked(c) // takes it off l.quiet
		c.dropped.Store(true)
		quiet = append(quiet, c)
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
	// reason (ShedAddressLimit, ShedTotalLimit, ShedEvictedIdle).
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
