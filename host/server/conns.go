package server

import (
	"io"
	"math"
	"net"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// A connection is in one of three phases, which the listener follows
// itself (fasthttp's own states do not tell them apart: it marks a fresh
// connection active before reading anything, and keeps calling a
// connection "new" for its first 5 seconds):
//   - quiet: accepted and silent, or an idle keep-alive connection waiting
//     for its next request;
//   - reading: request bytes have come in, and the request is not read
//     whole yet (its head or body is still arriving: serveHTTP reads the
//     body, fasthttp streaming it, before it calls startHandling);
//   - handling: the route's handler runs, or the reply is being written.
//
// Transitions, all on the connection's own goroutine:
//   - accepted: quiet;
//   - a read that returns bytes: reading (from quiet);
//   - the request is read whole and its handler starts (serveHTTP,
//     startHandling): handling;
//   - fasthttp's StateIdle (the reply is written), then its next read
//     (waiting for the next request, with nothing buffered): quiet again.
//     Not at StateIdle itself: fasthttp may already hold the next,
//     pipelined request in its buffer, and then goes on to StateActive
//     without a read: that connection is reading again (its request may
//     still be arriving), not quiet.
//
// Quiet and reading connections can be evicted: when limits.max_connections
// are open, a new connection takes the place of the one that made the least
// progress (see progress below), which is closed. A handling connection is
// never evicted: its handler may have committed a write whose reply would
// be lost.
//
// Whether an evictable connection goes on (reads more bytes, its handler
// starts) or is closed by the listener (a victim of admit, or closeQuiet at
// shutdown) is decided once, under the listener's lock: a read that brings
// bytes, and the start of the handler, first ask the listener, which refuses
// once it has released the connection. Then the read drops the bytes and
// ends the stream, and the handler does nothing, so no handler runs on a
// closed connection. A client whose request is cut this way sees the
// connection close before any reply. For an idle keep-alive connection that
// is what HTTP clients handle (they retry on a new one); a request still
// arriving when it is cut was the slowest the server held, while others
// waited for its slot.

// phase is a connection's phase (above).
type phase uint8

const (
	phaseQuiet phase = iota
	phaseReading
	phaseHandling
)

// How progress is measured: a connection's progress is the bytes it has
// delivered, each counting for less as it ages (half after
// progressHalfLife), plus acceptCredit bytes given at accept. So a
// connection that trickles a byte every few seconds stays near a byte or
// two, one that sent a burst and stalled fades to nothing within seconds,
// and a connection just accepted (whose request has not been read yet)
// ranks above both: its client has had no time to send. An idle keep-alive
// connection keeps only what is left of its last request. At
// max_connections, the connection with the least progress gives way.
//
// The key kept per connection is log(progress) plus the time since the
// listener's epoch in half-lives times ln 2: as every connection's progress
// decays at the same rate, their order changes only when bytes arrive, so
// the keys need no update while time passes (and a heap keeps them).
const (
	progressHalfLife = 2 * time.Second
	acceptCredit     = 1024
)

// guardedConn is a connection handed out by guardedListener. It gives its
// slot back when closed (once, however often Close is called), and tells
// the listener of its progress and phases.
type guardedConn struct {
	net.Conn
	l    *guardedListener
	addr string // limit.AddrKey of the client address

	// replied is set by fasthttp's StateIdle and cleared by its
	// StateActive: the next read, if it comes first, waits for the next
	// request and makes the connection quiet. Used on the connection's own
	// goroutine only.
	replied atomic.Bool
	// handling mirrors phase == phaseHandling, for connState to read
	// without the listener's lock (only the connection's own goroutine
	// changes it).
	handling atomic.Bool
	// closed is set by the first Close.
	closed atomic.Bool
	// dropped is set when the listener closes the connection itself (to
	// make room, or at shutdown): its failing read is then a clean end of
	// stream (io.EOF), which fasthttp does not log as an error, one line
	// per evicted connection.
	dropped atomic.Bool

	// Under l.mu:
	phase    phase
	key      float64 // progress (above); the least is evicted first
	seq      uint64  // l.seq at the last progress: the older first among equal keys
	idx      int     // in l.evictable, -1 when not there (handling, released)
	released bool    // its slot is given back (closed or evicted)
}

func (c *guardedConn) Read(p []byte) (int, error) {
	if c.replied.Load() {
		c.replied.Store(false)
		c.l.idle(c)
	}
	n, err := c.Conn.Read(p)
	if n > 0 && !c.l.progress(c, n) {
		// Released: the bytes are dropped, so that no request runs on
		// this connection (see above).
		return 0, io.EOF
	}
	if err != nil && c.dropped.Load() {
		err = io.EOF
	}
	return n, err
}

func (c *guardedConn) Close() error {
	if !c.closed.Swap(true) {
		c.l.release(c)
	}
	return c.Conn.Close()
}

// connState is fasthttp's ConnState hook: it sees the connections
// guardedListener handed out.
func connState(c net.Conn, st fasthttp.ConnState) {
	gc, ok := c.(*guardedConn)
	if !ok {
		return
	}
	switch st {
	case fasthttp.StateIdle:
		gc.replied.Store(true)
	case fasthttp.StateActive:
		gc.replied.Store(false)
		if gc.handling.Load() {
			// The next, pipelined request, without a read: it may still
			// be arriving.
			gc.l.reading(gc)
		}
	}
}

// startHandling reports whether the handler may run a request read from c:
// c becomes handling, never to be evicted until its reply is written. It
// reports false when the listener has already closed c (evicted while its
// request arrived): then no handler may run, its reply would be lost.
func startHandling(c net.Conn) bool {
	gc, ok := c.(*guardedConn)
	return !ok || gc.l.handle(gc)
}

// addProgress is the key of progress key with n more bytes at time at (in
// the keys' units).
func addProgress(key float64, n int, at float64) float64 {
	v := math.Log(float64(n)) + at
	hi, lo := max(key, v), min(key, v)
	return hi + math.Log1p(math.Exp(lo-hi))
}

// evictHeap orders the evictable connections, the least progress first.
type evictHeap []*guardedConn

func (h evictHeap) Len() int { return len(h) }
func (h evictHeap) Less(i, j int) bool {
	if h[i].key != h[j].key {
		return h[i].key < h[j].key
	}
	return h[i].seq < h[j].seq
}
func (h evictHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
func (h *evictHeap) Push(x any) {
	c := x.(*guardedConn)
	c.idx = len(*h)
	*h = append(*h, c)
}
func (h *evictHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	c.idx = -1
	return c
}
