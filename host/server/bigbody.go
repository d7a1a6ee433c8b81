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
// route's handler runs, with server.body_limit as its bound. fasthttp
// streams the body (server.go New): serveHTTP reads it as its bytes arrive
// (wire.ReadRequest), so a head that declares a large body holds no memory
// for it until its bytes come. A route may raise its own bound
// (Route.Limits: the statistics of a long match are several megabytes) up
// to server.large_body_limit, granted in HeaderReceived once the header has
// arrived, only while the declared body fits server.large_body_budget: the
// bytes of larger bodies being read at once, server-wide. A request that
// finds the budget spent is refused before its body is read (beyond what
// fasthttp reads ahead, 8 KiB), with the route's failure for ErrBusy, and
// its connection closed. Only a body that declares its Content-Length gets
// the larger bound: a chunked body keeps server.body_limit (refused as too
// large beyond it).
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

// held reports whether h holds a share of the budget, and whether it
// was refused one as busy.
func (b *bigBodies) held(h *fasthttp.RequestHeader) (held, busy bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.holds[h]
	return ok && !v.busy, v.busy
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
	lim, ok := s.large[string(routedPath(h))]
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

// routedPath is the path of h's request as the server routes it
// (ctx.Path(): %-escapes decoded, repeated slashes and dot segments
// removed, a fragment cut, an absolute-form target's path). Looked up by the raw target,
// a large-body route spelled otherwise ("//stats_requester.php", as a
// manager whose base URL ends in "/" builds it) was routed to its
// handler with no hold of the budget, and every body above
// server.body_limit refused as busy however idle the budget. A target
// already in that form (the usual one) is its own path, with no copy.
func routedPath(h *fasthttp.RequestHeader) []byte {
	uri := h.RequestURI()
	if i := bytes.IndexByte(uri, '?'); i >= 0 {
		uri = uri[:i]
	}
	if len(uri) > 0 && uri[0] == '/' && bytes.IndexByte(uri, '%') < 0 && bytes.IndexByte(uri, '#') < 0 &&
		!bytes.Contains(uri, []byte("//")) && !bytes.Contains(uri, []byte("/.")) {
		return uri
	}
	u := fasthttp.AcquireURI()
	defer fasthttp.ReleaseURI(u)
	if err := u.Parse(h.Host(), h.RequestURI()); err != nil {
		return uri
	}
	return append([]byte(nil), u.Path()...)
}

// bodyLimits are the limits wire reads path's request of header h with:
// a route's own, larger body bound only for a body whose length h
// declares and which holds its share of the budget (headerReceived);
// ErrBusy for one refused as the budget was spent.
func (s *Server) bodyLimits(h *fasthttp.RequestHeader, path string) (wire.Limits, error) {
	lim, ok := s.large[path]
	if !ok {
		return s.limits, nil
	}
	if int64(h.ContentLength()) <= s.limits.MaxBody {
		if h.ContentLength() < 0 {
			lim.MaxBody = s.limits.MaxBody // chunked: the server's bound
		}
		return lim, nil
	}
	switch held, busy := s.big.held(h); {
	case busy:
		return lim, ErrBusy
	case !held && int64(h.ContentLength()) <= lim.MaxBody:
		return lim, ErrBusy // its hold expired: not read without one
	}
	return lim, nil
}
