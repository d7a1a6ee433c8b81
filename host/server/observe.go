package server

import (
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/honmaster/masterserver/host/logflood"
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
	// Client is the client's address (with server.trust_forwarded_for,
	// the right-most X-Forwarded-For address that is not a trusted proxy:
	// see clientAddress).
	Client string
	// Account is the account the request names (its login or account_id
	// field, clipped to logflood.ClipBytes), "" when it names none (a
	// request with only a cookie: see AccountName).
	Account string
	// cookie is the request's session cookie, "" when it has none; never
	// logged, only resolved to its account by AccountName.
	cookie string
	// session resolves a cookie to its account's id ("" when it is no
	// live session's); nil when the server has no login service.
	session func(cookie string) string
	// Outcome is the route's (Route.Outcome); nil when it has none.
	Outcome func(body []byte) string
	// Counted is the route's (Route.Counted); nil when it has none. The
	// observer calls it with the outcome it found.
	Counted func(outcome string)
}

// AccountName is the account a log line names for the request: the login
// or account_id it names, else the id of the account of its session
// cookie (looked up now, from memory for a live session on one node), or
// "" for a request of nobody's (no cookie, or one of no live session).
// A logout's session is gone once it is served: its account was looked up
// before (see observed).
func (r *RequestInfo) AccountName() string {
	if r.Account == "" && r.cookie != "" && r.session != nil {
		r.Account, r.session = r.session(r.cookie), nil
	}
	return r.Account
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
		if info.Account = r.Value("login"); info.Account == "" { // as the handlers decode them
			info.Account = r.Value("account_id")
		}
		info.Account = logflood.Clip(info.Account)
		if info.Account == "" {
			if pre, ok := preResolved(ctx); ok {
				info.Account = pre
			} else if info.cookie = cookieOf(r); info.cookie != "" && s.login != nil {
				info.session = s.sessionAccount
			}
		}
	} else {
		// Not read (refused, malformed, or /healthz): the client is still
		// the one X-Forwarded-For names behind a trusted proxy.
		info.Client = s.clientIP(ctx)
	}
	s.observe(info)
}

// cookieOf is the session cookie r carries, as the handlers read it
// (wire.Request.Value: the form's when the form has the field, else the
// query's), "" when none.
func cookieOf(r *wire.Request) string { return r.Value("cookie") }

// sessionAccount is the id of the account of a session's cookie, ""
// when the cookie is no live session's (login.Service.LoggedAccount).
func (s *Server) sessionAccount(cookie string) string {
	id, ok := s.login.LoggedAccount(cookie)
	if !ok {
		return ""
	}
	return strconv.FormatUint(uint64(id), 10)
}

// preResolvedKey is the user value of a request whose account was looked
// up before it was served (a logout ends its own session).
const preResolvedKey = "honmaster.account"

// resolveBefore looks up the account of r's session before it is served,
// for its access line: a logout's session is gone afterwards.
func (s *Server) resolveBefore(ctx *fasthttp.RequestCtx, r *wire.Request) {
	if s.observe == nil || s.login == nil {
		return
	}
	if c := cookieOf(r); c != "" {
		ctx.SetUserValue(preResolvedKey, s.sessionAccount(c))
	}
}

func preResolved(ctx *fasthttp.RequestCtx) (string, bool) {
	v, ok := ctx.UserValue(preResolvedKey).(string)
	return v, ok && v != ""
}
