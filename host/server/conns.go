package server

import (
	"net"
	"sync"
	"sync/atomic"

	"github.com/valyala/fasthttp"
)

// connTracker remembers the state of every open connection, so that a
// shutdown can close the ones that carry no request. fasthttp counts a fresh
// connection as busy for its first 5 seconds, and HTTP clients open spare
// connections they may never use: without this, such connections hold a
// graceful shutdown until its timeout.
type connTracker struct {
	mu    sync.Mutex
	conns map[net.Conn]fasthttp.ConnState
}

func (t *connTracker) hook(c net.Conn, st fasthttp.ConnState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch st {
	case fasthttp.StateClosed, fasthttp.StateHijacked:
		delete(t.conns, c)
	default:
		if t.conns == nil {
			t.conns = map[net.Conn]fasthttp.ConnState{}
		}
		t.conns[c] = st
	}
}

// closeQuiet closes the connections that are not serving a request: idle
// keep-alive ones, and fresh ones that have not sent a byte (fasthttp marks
// a connection active before reading anything, so the byte count tells).
// No handler runs on them, so nothing is cut half-way.
func (t *connTracker) closeQuiet() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for c, st := range t.conns {
		silent := false
		if cc, ok := c.(*countingConn); ok {
			silent = cc.read.Load() == 0
		}
		if st == fasthttp.StateNew || st == fasthttp.StateIdle || (st == fasthttp.StateActive && silent) {
			c.Close()
			delete(t.conns, c)
		}
	}
}

// countingListener hands out connections that count the bytes they read.
type countingListener struct{ net.Listener }

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c}, nil
}

// countingConn counts bytes read, to tell a connection that never sent
// anything from one carrying a request.
type countingConn struct {
	net.Conn
	read atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}
