package server

import (
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Accept back-off, as net/http's: 5 ms after the first temporary error,
// doubling up to 1 s while errors go on.
const (
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
)

// guardedListener keeps the server accepting whatever happens to accept, and
// bounds open connections.
//
// fasthttp's accept loop treats any accept error but a timeout as permanent
// and stops serving: one burst of idle connections that exhausts the file
// descriptors (EMFILE) used to leave HTTP dead for good. Here a temporary
// error (out of descriptors or buffers, a connection aborted before it was
// accepted) is retried after a back-off and never reaches fasthttp; only a
// closed listener ends Accept.
//
// A connection over the total or per-address limit is closed as soon as it
// is accepted, so that it costs one descriptor for an instant, not one for
// the idle timeout.
type guardedListener struct {
	net.Listener
	log     *slog.Logger
	max     int // open connections in total
	perAddr int // open connections per client address

	mu     sync.Mutex
	open   int
	byAddr map[string]int

	refused    atomic.Int64 // connections closed over a limit
	lastLogged atomic.Int64 // unix nanoseconds of the last accept-error log
}

func newGuardedListener(ln net.Listener, max, perAddr int, log *slog.Logger) *guardedListener {
	return &guardedListener{Listener: ln, log: log, max: max, perAddr: perAddr, byAddr: map[string]int{}}
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
		addr := hostOf(c.RemoteAddr())
		if !l.admit(addr) {
			l.refused.Add(1)
			c.Close()
			continue
		}
		return &guardedConn{Conn: c, l: l, addr: addr}, nil
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

func (l *guardedListener) admit(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= l.max || l.byAddr[addr] >= l.perAddr {
		return false
	}
	l.open++
	l.byAddr[addr]++
	return true
}

func (l *guardedListener) release(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if n := l.byAddr[addr] - 1; n > 0 {
		l.byAddr[addr] = n
	} else {
		delete(l.byAddr, addr)
	}
}

// Open returns how many accepted connections are open.
func (l *guardedListener) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// guardedConn gives its slot back when closed (once, however often Close is
// called).
type guardedConn struct {
	net.Conn
	l      *guardedListener
	addr   string
	closed atomic.Bool
}

func (c *guardedConn) Close() error {
	if !c.closed.Swap(true) {
		c.l.release(c.addr)
	}
	return c.Conn.Close()
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

// hostOf is the client address of a connection without its port.
func hostOf(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}
