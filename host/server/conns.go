package server

import (
	"net"
	"sync"

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

// closeQuiet closes the connections that are not serving a request: new
// ones that sent nothing yet and idle keep-alive ones. No handler runs on
// them, so nothing is cut half-way.
func (t *connTracker) closeQuiet() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for c, st := range t.conns {
		if st == fasthttp.StateNew || st == fasthttp.StateIdle {
			c.Close()
			delete(t.conns, c)
		}
	}
}
