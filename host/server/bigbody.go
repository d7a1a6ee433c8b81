package server

import (
	"bytes"
	"errors"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/honmaster/masterserver/wire"
)

// Larger bodies on one route. Every request is read whole before its
// handler runs, with server.body_limit as its bound. A route may raise its
// own bound (Route.Limits: the statistics of a long match are several
// megabytes) up to server.large_body_limit. fasthttp takes a request's body
// bound from HeaderReceived once the header has arrived, and allocates a
// body of the declared Content-Length before reading it, so a larger bound
// is granted only while the body fits server.large_body_budget: the bytes
// of larger bodies being read at once, server-wide. A request that finds
// the budget spent keeps server.body_limit; when its body is larger, it is
// refused before it is read, with the route's failure for ErrBusy. Only a
// body that declares its Content-Length gets the larger bound: a chunked
// body keeps server.body_limit (refused as too large beyond it).
//
// The HTTP layer decides this from the header alone, before it knows the
// client's address, so the budget is server-wide: the per-address
// connection limits bound what one address holds of it, and an area checks
// who sent a large body once it is read (a game server's session).

// ErrBusy is the failure a route's Fail gets for a body refused because
// too many large bodies were being read at once: nothing was read or done;
// the client may send it again later.
var ErrBusy = errors.New("the server is reading too many large requests; try again later")

// bigBodies is the budget of bodies above server.body_limit. A hold is
// keyed by the request's header, which fasthttp keeps for the connection's
// life and passes to HeaderReceived. Only a body of declared length holds
// any (headerReceived), and fasthttp ends every such request it granted in
// the handler (serveHTTP) or the error handler (fasthttpError): a body cut
// short, by its client or by the listener, is an unexpected EOF there, and
// both release the hold on every path. The expiry (the read timeout and
// then some) is a backstop for a path that reaches neither (an
// "Expect: 100-continue" whose interim reply cannot be written); the same
// header's next request replaces its hold anyway.
type bigBodies struct {
	mu     sync.Mutex
	budget int64
	used   int64
	ttl    time.Duration
	holds  map[*fasthttp.RequestHeader]bodyHold
	now    func() time.Time // tests
}

type bodyHold struct {
	bytes int64     // of the budget; 0 for a refusal
	until time.Time // released by then at the latest
	busy  bool      // refused: the budget was spent
}

func newBigBodies(budget int64, ttl time.Duration) *bigBodies {
	return &bigBodies{budget: budget, ttl: ttl, holds: map[*fasthttp.RequestHeader]bodyHold{}, now: time.Now}
}

// grant reserves n bytes for h's body; false (and h marked busy) when the
// budget has not that much left.
func (b *bigBodies) grant(h *fasthttp.RequestHeader, n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.releaseLocked(h)
	if b.used+n > b.budget {
		for k, v := range b.holds {
			if now.After(v.until) {
				b.used -= v.bytes
				delete(b.holds, k)
			}
		}
	}
	if b.used+n > b.budget {
		b.holds[h] = bodyHold{until: now.Add(b.ttl), busy: true}
		return false
	}
	b.used += n
	b.holds[h] = bodyHold{bytes: n, until: now.Add(b.ttl)}
	return true
}

// release ends h's hold; it reports whether h was refused as busy.
func (b *bigBodies) release(h *fasthttp.RequestHeader) (busy bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	busy = b.holds[h].busy
	b.releaseLocked(h)
	return busy
}

func (b *bigBodies) releaseLocked(h *fasthttp.RequestHeader) {
	if v, ok := b.holds[h]; ok {
		b.used -= v.bytes
		delete(b.holds, h)
	}
}

// inUse is the budget's bytes held (tests, metrics).
func (b *bigBodies) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// headerReceived is fasthttp's HeaderReceived: a request to a route with a
// larger body limit gets it while the budget lasts. Every other request
// keeps the server's bound (a zero RequestConfig).
func (s *Server) headerReceived(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	if len(s.large) == 0 {
		return fasthttp.RequestConfig{}
	}
	uri := h.RequestURI()
	if i := bytes.IndexByte(uri, '?'); i >= 0 {
		uri = uri[:i]
	}
	lim, ok := s.large[string(uri)]
	if !ok {
		return fasthttp.RequestConfig{}
	}
	n := int64(h.ContentLength())
	switch {
	case n < 0:
		// Chunked (or no body): its length is unknown, so it keeps the
		// server's bound and holds nothing of the budget. Reserving the
		// route's whole bound let four bare heads spend the budget of every
		// client (and fasthttp ends such a request without a word when its
		// client hangs up, so nothing released it). A body above
		// server.body_limit must declare its Content-Length, as the game
		// servers and their managers do.
		return fasthttp.RequestConfig{}
	case n <= s.limits.MaxBody:
		return fasthttp.RequestConfig{} // fits the server's bound anyway
	case n > lim.MaxBody:
		return fasthttp.RequestConfig{} // refused as too large, as it is
	}
	if !s.big.grant(h, n) {
		return fasthttp.RequestConfig{}
	}
	return fasthttp.RequestConfig{MaxRequestBodySize: int(lim.MaxBody) + 64<<10}
}

// limitsOf are the limits wire reads path's requests with.
func (s *Server) limitsOf(path string) wire.Limits {
	if lim, ok := s.large[path]; ok {
		return lim
	}
	return s.limits
}
