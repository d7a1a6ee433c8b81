package server

import (
	"time"

	"github.com/valyala/fasthttp"

	"github.com/honmaster/masterserver/wire"
)

// RequestInfo describes one answered request, for metrics.
type RequestInfo struct {
	// Route names the endpoint: the path for routes served by path,
	// "client_requester.php?f=<function>" for the login functions,
	// "healthz", or "unknown" for paths and functions that are not served
	// (never the raw path: unknown paths would make unbounded label sets).
	Route    string
	Area     string // "unknown" when not served
	Status   int    // HTTP status
	Body     []byte // the reply body; valid only during the call
	Duration time.Duration
	// Client is the client's address (X-Forwarded-For's last entry with
	// server.trust_forwarded_for).
	Client string
	// Account is the account the request names (its login or account_id
	// field), "" when it names none (a request with only a cookie).
	Account string
	// Outcome is the route's (Route.Outcome); nil when it has none.
	Outcome func(body []byte) string
	// Counted is the route's (Route.Counted); nil when it has none. The
	// observer calls it with the outcome it found.
	Counted func(outcome string)
}

// SetObserver makes the server report every answered request to f, on the
// request's goroutine after the reply is written to fasthttp's buffer. f
// must be quick and must not keep Body. Call before Serve.
func (s *Server) SetObserver(f func(*RequestInfo)) { s.observe = f }

// routeName is the metric name of the route of path and fn.
func routeName(path, fn string, found bool) string {
	switch {
	case path == PathHealth:
		return "healthz"
	case !found:
		return "unknown"
	case path == PathClientRequester:
		return "client_requester.php?f=" + fn
	}
	return path
}

// observed reports a request to the observer, if any; r is the request
// as read (nil when it could not be).
func (s *Server) observed(ctx *fasthttp.RequestCtx, r *wire.Request, path, fn string, found bool, rt route, body []byte, start time.Time) {
	if s.observe == nil {
		return
	}
	area := rt.area
	if !found {
		area = "unknown"
	}
	info := &RequestInfo{Route: routeName(path, fn, found), Area: area, Status: ctx.Response.StatusCode(), Body: body,
		Duration: time.Since(start), Outcome: rt.outcome, Counted: rt.counted}
	if r != nil {
		info.Client = r.RemoteIP
		if info.Account = r.Form.Get("login"); info.Account == "" {
			info.Account = r.Form.Get("account_id")
		}
	} else {
		info.Client = ctx.RemoteIP().String()
	}
	s.observe(info)
}
