package server

import (
	"container/list"
	"io"
	"net"
	"sync/atomic"

	"github.com/valyala/fasthttp"
)

// A connection is quiet while it carries no request: accepted and silent,
// or an idle keep-alive connection waiting for its next request. Quiet
// connections are what a full server evicts to make room for a new client
// (oldest first), and what a shutdown closes at once.
//
// fasthttp's own states do not tell it: it marks a fresh connection active
// before reading anything, and keeps calling a connection "new" for its
// first 5 seconds. So the listener follows each connection itself:
//   - accepted: quiet;
//   - a read that returns bytes: busy (a request is coming in);
//   - fasthttp's StateIdle (the reply is written), then its next read
//     (waiting for the next request, with nothing buffered): quiet again.
//     Not at StateIdle itself: fasthttp may already hold the next,
//     pipelined request in its buffer, and then goes on to StateActive
//     without a read; that connection stays busy.
//
// Whether a quiet connection becomes busy or is closed by the listener (a
// victim of admit, or closeQuiet at shutdown) is decided once, under the
// listener's lock: the read that brings a quiet connection bytes takes it
// off the quiet list (busy), unless the listener has already released it.
// Then the read drops the bytes and ends the stream, so fasthttp never sees
// them: no handler runs on a closed connection, whose reply would be lost
// after the handler committed. And a busy connection is off the quiet list,
// so the listener never closes it. So closing a quiet connection cuts no
// request. A client that sends its next request on an idle keep-alive
// connection at the very moment it is closed sees the connection close
// before any reply, which HTTP clients handle for keep-alive connections
// (they retry on a new one).

// guardedConn is a connection handed out by guardedListener. It gives its
// slot back when closed (once, however often Close is called), and tells
// the listener when it becomes busy.
type guardedConn struct {
	net.Conn
	l    *guardedListener
	addr string // limit.AddrKey of the client address

	// quiet is set (under l.mu) when the connection goes on l.quiet, and
	// cleared only by busy, on the connection's own goroutine: it stays set
	// when the listener releases the connection, so that a read racing the
	// release asks busy, which refuses. It lets Read skip the listener's
	// lock while the connection is busy.
	quiet atomic.Bool
	// replied is set by fasthttp's StateIdle and cleared by its
	// StateActive: the next read, if it comes first, waits for the next
	// request and makes the connection quiet. Used on the connection's own
	// goroutine only.
	replied atomic.Bool
	// closed is set by the first Close.
	closed atomic.Bool
	// dropped is set when the listener closes the connection itself (to
	// make room, or at shutdown): its failing read is then a clean end of
	// stream (io.EOF), which fasthttp does not log as an error, one line
	// per evicted connection.
	dropped atomic.Bool

	// Under l.mu:
	elem     *list.Element // in l.quiet while quiet
	released bool          // its slot is given back (closed or evicted)
}

func (c *guardedConn) Read(p []byte) (int, error) {
	if c.replied.Load() {
		c.replied.Store(false)
		c.l.idle(c)
	}
	n, err := c.Conn.Read(p)
	if n > 0 && c.quiet.Load() && !c.l.busy(c) {
		// Released while quiet: the bytes are dropped, so that no request
		// runs on this connection (see above).
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
	}
}
