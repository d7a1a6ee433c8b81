package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/logflood"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// Deps are the services the host serves.
type Deps struct {
	Config   *config.Config
	Logger   *slog.Logger
	Login    *login.Service
	Accounts *accounts.Service
}

// Server is the HTTP host.
type Server struct {
	cfg          atomic.Pointer[config.Config] // conf; swapped by Reload
	log          *slog.Logger
	login        *login.Service
	accounts     *accounts.Service
	limits       wire.Limits
	large        map[string]wire.Limits // paths with limits of their own (Route.Limits, bigbody.go)
	big          *bigBodies
	paths        map[string]route
	funcs        map[string]route
	ready        atomic.Bool
	healthCheck  func() []string
	srv          *fasthttp.Server
	listener     atomic.Pointer[guardedListener] // set by Serve
	checks       healthChecks                    // health.go
	regs         registrations                   // portal.go
	observe      func(*RequestInfo)              // metrics, see SetObserver
	forward      Forwarder                       // cluster mode, see SetForwarder
	healthNote   func() string                   // see SetHealthNote
	healthDetail func() string                   // see SetHealthNote
}

// Forwarder sends a request to the node where its account is at home
// (cluster mode, package host/cluster). account is the request's route's
// Route.Account (nil when the route has none): the forwarder asks it first
// which account the request is about, and uses its own rule (the login of
// the login functions, else the session cookie) when it names none.
// handled is false when the request is to be served here; err (with
// handled) when it could not be served anywhere, worded by the route's
// failure function.
type Forwarder interface {
	Forward(ctx context.Context, r *wire.Request, account AccountOf) (resp Response, handled bool, err error)
}

// AccountOf names the account a request is about, for cluster mode: the
// request is served on that account's home node, where the account's
// actor lives, so that its writes need no transient activation elsewhere
// (docs/cluster.md). ok false: the route does not name one, and the
// forwarder's own rule applies (the login of pre_auth, srpAuth and
// switch_auth, else the "cookie" field's session; none: served where the
// request arrived). It runs on every request of the route on the node
// that received it, before anything is served: it must only read (a
// session, the login index), be quick, and never fail on bad input (it
// returns false).
type AccountOf func(r *wire.Request) (id storage.AccountID, ok bool)

// NotServedError is the failure a route's Fail gets for a request that was
// read but could not be served: in cluster mode, its account's node did not
// answer (Err wraps actors.ErrTimeout: the outcome is unknown) or this node
// is not serving (Err wraps actors.ErrExpired: nothing was done). Every
// area answers it with its outcome-unknown or try-again reply, never as a
// request that could not be read, and may echo fields of Request (a
// guide's hosttime).
type NotServedError struct {
	Request *wire.Request
	Err     error
}

func (e *NotServedError) Error() string { return "not served: " + e.Err.Error() }
func (e *NotServedError) Unwrap() error { return e.Err }

// SetForwarder puts the server in cluster mode, before Serve.
func (s *Server) SetForwarder(f Forwarder) { s.forward = f }

// ServeLocal serves a request on this node, as if it had arrived here: a
// request another node forwarded to the home node of its account.
func (s *Server) ServeLocal(ctx context.Context, r *wire.Request) Response {
	fn := r.Query.Get("f")
	if fn == "" {
		fn = r.Form.Get("f")
	}
	rt, found := s.lookup(r.Path, fn)
	if !found {
		return s.notFound(r.Path, fn)
	}
	return s.call(ctx, rt, r)
}

// New builds a server. Call Mount for the areas before Serve.
func New(d Deps) *Server {
	s := &Server{log: d.Logger, login: d.Login, accounts: d.Accounts}
	s.cfg.Store(d.Config)
	s.paths, s.funcs = s.builtinRoutes()
	s.limits = wire.Limits{MaxBody: int64(d.Config.Server.BodyLimit)}
	c := d.Config.Server
	s.big = newBigBodies(int64(c.LargeBodyBudget), c.ReadTimeout.Duration+c.WriteTimeout.Duration+d.Config.Actors.AskTimeout.Duration+time.Second)
	// Built here, not in Serve, so that Shutdown never races with Serve.
	s.srv = &fasthttp.Server{
		Handler:            s.serveHTTP,
		Name:               "honmaster",
		ReadTimeout:        c.ReadTimeout.Duration,
		WriteTimeout:       c.WriteTimeout.Duration,
		IdleTimeout:        c.IdleTimeout.Duration,
		MaxRequestBodySize: int(c.BodyLimit) + 64<<10, // headroom so that wire reports the limit itself
		// The body is read by serveHTTP (wire.ReadRequest) as its bytes
		// arrive: fasthttp would allocate a body of the declared
		// Content-Length before its first byte, so that bare request heads
		// pinned body_limit each (64 MiB from one address, 10 GiB at
		// max_connections). fasthttp reads only the first 8 KiB itself.
		StreamRequestBody:            true,
		Logger:                       fasthttpLogger{s.log},
		DisablePreParseMultipartForm: true,      // wire parses the body itself, once
		CloseOnShutdown:              true,      // keep-alive clients are told to go during shutdown
		ConnState:                    connState, // conns.go
		// Errors fasthttp answers itself (a body beyond its own limit, a
		// broken request line) still get the route's failure shape.
		ErrorHandler: s.fasthttpError,
		// A route with a larger body limit of its own gets it per request
		// (bigbody.go).
		HeaderReceived: s.headerReceived,
	}
	return s
}

// conf is the configuration in force.
func (s *Server) conf() *config.Config { return s.cfg.Load() }

// Reload puts cfg in force for what the server reads per request (patch
// records, portal.register_enabled, server.trust_forwarded_for,
// actors.ask_timeout) and its limits (limits.registrations_per_address,
// limits.max_connections, limits.max_connections_per_address, and the
// trusted proxies it does not hold to the latter); requests
// in flight finish with the configuration they started with. What fasthttp
// was built with (timeouts, body limit) and the listen address stay as
// they are: the caller keeps those keys at their running values.
func (s *Server) Reload(cfg *config.Config) {
	s.cfg.Store(cfg)
	l := cfg.Limits
	s.registerLimit().SetRate(limit.Rate{Burst: l.RegistrationsPerAddress.Burst, Every: l.RegistrationsPerAddress.Every.Duration})
	if gl := s.listener.Load(); gl != nil {
		gl.setLimits(l.MaxConnections, l.MaxConnectionsPerAddress)
		gl.setProxies(cfg)
	}
}

// ErrRouteClash: two areas (or an area and the host) claim one path or one
// client_requester function.
var ErrRouteClash = errors.New("route served twice")

// Mount adds the routes of an area, before Serve. A path or function that
// is already served, or a route naming neither or both, is an error and
// nothing of routes is added.
func (s *Server) Mount(routes ...Route) error {
	seen := map[string]bool{}
	for _, r := range routes {
		table, key, what := s.paths, r.Path, "path "+r.Path
		if r.Func != "" {
			table, key, what = s.funcs, r.Func, fmt.Sprintf("%s function %q", PathClientRequester, r.Func)
		}
		switch {
		case (r.Path == "") == (r.Func == ""):
			return fmt.Errorf("area %s: a route needs a path or a function, not both: %+v", r.Area, r)
		case r.Path == PathClientRequester || r.Path == PathHealth:
			return fmt.Errorf("%w: area %s claims the host's %s", ErrRouteClash, r.Area, r.Path)
		case seen[what]:
			return fmt.Errorf("%w: area %s lists %s twice", ErrRouteClash, r.Area, what)
		case r.Limits != (wire.Limits{}) && r.Func != "":
			return fmt.Errorf("area %s: %s: only a path may have limits of its own", r.Area, what)
		case r.Limits.MaxBody > int64(s.conf().Server.LargeBodyLimit):
			return fmt.Errorf("area %s: %s accepts bodies of %d bytes, more than server.large_body_limit (%s)",
				r.Area, what, r.Limits.MaxBody, s.conf().Server.LargeBodyLimit)
		}
		if old, dup := table[key]; dup {
			return fmt.Errorf("%w: %s of area %s is already served by area %s", ErrRouteClash, what, r.Area, old.area)
		}
		seen[what] = true
	}
	for _, r := range routes {
		fail := r.Fail
		if fail == nil {
			fail = s.genericFail
		}
		rt := route{area: r.Area, handler: r.Handler, fail: fail, doc: r.Doc, outcome: r.Outcome, counted: r.Counted, account: r.Account}
		if r.Func != "" {
			s.funcs[r.Func] = rt
		} else {
			s.paths[r.Path] = rt
		}
		if r.Limits != (wire.Limits{}) {
			lim := r.Limits
			if lim.MaxBody < s.limits.MaxBody {
				lim.MaxBody = s.limits.MaxBody
			}
			if s.large == nil {
				s.large = map[string]wire.Limits{}
			}
			s.large[r.Path] = lim
		}
	}
	return nil
}

// SetHealthCheck adds a check (plugins running ...) that /healthz requires
// besides the server itself being up: f names the unhealthy parts, none
// when healthy.
func (s *Server) SetHealthCheck(f func() []string) { s.healthCheck = f }

// Serve serves on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	guarded := newGuardedListener(ln, s.conf().Limits.MaxConnections, s.conf().Limits.MaxConnectionsPerAddress, s.log)
	guarded.setProxies(s.conf())
	s.listener.Store(guarded)
	s.ready.Store(true)
	err := s.srv.Serve(guarded)
	s.ready.Store(false) // whatever ended serving, /healthz no longer says ok
	return err
}

// ConnStats returns the game listener's connection figures (zero before
// Serve), for metrics.
func (s *Server) ConnStats() ConnStats {
	if l := s.listener.Load(); l != nil {
		return l.Stats()
	}
	return ConnStats{}
}

// Shutdown stops accepting, waits for requests in flight (bounded by ctx),
// and returns.
func (s *Server) Shutdown(ctx context.Context) error {
	s.ready.Store(false)
	done := make(chan error, 1)
	go func() { done <- s.srv.ShutdownWithContext(ctx) }()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if l := s.listener.Load(); l != nil {
			l.closeQuiet()
		}
		select {
		case err := <-done:
			if errors.Is(err, context.DeadlineExceeded) {
				// fasthttp's count of open connections is not exact (it can
				// stay above zero with none left), so its wait can run to
				// the deadline. The listener is closed and every request had
				// the whole timeout to finish: go on, as net/http users do
				// with Shutdown followed by Close.
				s.log.Warn("shutdown timeout reached; closing with connections fasthttp still counts",
					"open", s.srv.GetOpenConnectionsCount())
				return nil
			}
			return err
		case <-tick.C:
		}
	}
}

func (s *Server) serveHTTP(ctx *fasthttp.RequestCtx) {
	// The request's hold of the large-body budget (bigbody.go) ends with
	// the request, on every path below.
	if len(s.large) > 0 {
		defer s.big.release(&ctx.Request.Header)
	}
	start := time.Now()
	path := string(ctx.Path())
	// Every path, /healthz too: what a proxy in front read as this
	// request's body would otherwise be served here as the next request.
	framing := checkFraming(&ctx.Request.Header)
	if framing != nil || path == PathHealth {
		// No body is read (fasthttp streams it: server.go New).
		if !s.startHandling(ctx) {
			return
		}
		if framing != nil {
			s.refuseFraming(ctx, framing, start)
			return
		}
		if hasBody(&ctx.Request.Header) {
			ctx.SetConnectionClose() // the next request would be read from its body
		}
		s.health(ctx)
		s.observed(ctx, nil, path, "", true, route{area: "health"}, nil, start)
		return
	}
	var resp Response
	fn := ""
	// The body is read here, as it arrives, while the listener still
	// counts the connection as reading its request (conns.go).
	var r *wire.Request
	lim, err := s.bodyLimits(&ctx.Request.Header, path)
	if err == nil {
		r, err = wire.ReadRequest(ctx, lim)
	}
	if err != nil {
		drainBody(&ctx.Request, s.srv.MaxRequestBodySize)
	}
	if !s.startHandling(ctx) {
		return
	}
	if err != nil && hasBody(&ctx.Request.Header) {
		// The body may not have been read to its end, and the next
		// request would be read from the rest of it.
		ctx.SetConnectionClose()
	}
	if r != nil {
		r.RemoteIP = s.clientIP(ctx)
		fn = r.Query.Get("f")
		if fn == "" {
			fn = r.Form.Get("f")
		}
	} else {
		// The body was refused (too large, malformed, busy): route the
		// failure by the query's f, so it still gets the right area's
		// shape.
		fn = string(ctx.QueryArgs().Peek("f"))
	}
	rt, found := s.lookup(path, fn)
	switch {
	case !found:
		resp = s.notFound(path, fn)
	case errors.Is(err, ErrBusy):
		resp = rt.fail(ErrBusy)
	case err != nil:
		resp = rt.fail(fmt.Errorf("%w: %w", errBadRequest, err))
	default:
		if early, refused := s.loginTooLong(path, fn, r); refused {
			resp = early
			break
		}
		if path == PathClientRequester && fn == FuncLogout {
			s.resolveBefore(ctx, r)
		}
		c, cancel := context.WithTimeout(context.Background(), s.conf().Actors.AskTimeout.Duration+time.Second)
		resp = s.serve(c, rt, r)
		cancel()
	}
	s.write(ctx, resp)
	s.observed(ctx, r, path, fn, found, rt, resp.Body, start)
}

var errBadRequest = errors.New("bad request")

// drainBody reads and drops what is left of a refused request's streamed
// body (too large, malformed, busy), up to max bytes, before its reply: the
// close that follows the reply would otherwise reset the connection under
// a client still sending its body, and the client would read a reset, not
// the reply (net/http drains likewise). The server passes its
// MaxRequestBodySize, server.body_limit and 64 KiB: the bodies fasthttp
// read whole before it streamed them, whose clients got the reply. A
// larger body is not waited for. It runs before the connection counts as
// handling, so a client that trickles it can still be evicted, and under
// the request's read deadline; nothing read is kept.
func drainBody(req *fasthttp.Request, max int) {
	if req.IsBodyStream() {
		_, _ = io.CopyN(io.Discard, req.BodyStream(), int64(max))
	}
}

// startHandling makes the connection handling (conns.go): false, and the
// connection closed after nothing is written, when the listener closed it
// while the request arrived: nobody would read the reply.
func (s *Server) startHandling(ctx *fasthttp.RequestCtx) bool {
	if !startHandling(ctx.Conn()) {
		ctx.SetConnectionClose()
		return false
	}
	return true
}

// hasBody reports whether a request declares a body (of a length, or
// chunked).
func hasBody(h *fasthttp.RequestHeader) bool {
	cl := h.ContentLength()
	return cl > 0 || cl == -1
}

// ErrHandlerPanic is the error a route's Fail gets when its handler
// panicked: the server's own failure, never the request's.
var ErrHandlerPanic = errors.New("internal error")

// serve serves r here, or on its account's home node in cluster mode.
func (s *Server) serve(ctx context.Context, rt route, r *wire.Request) Response {
	if s.forward != nil {
		resp, handled, err := s.forward.Forward(ctx, r, rt.account)
		switch {
		case handled && err != nil:
			s.log.Warn("request not served by its account's node", "area", rt.area, "err", err)
			return rt.fail(&NotServedError{Request: r, Err: err})
		case handled:
			return resp
		}
	}
	return s.call(ctx, rt, r)
}

// call runs the handler, turning a panic into the route's failure reply so
// that one bad request never takes the server down.
func (s *Server) call(ctx context.Context, rt route, r *wire.Request) (resp Response) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("handler panic", "area", rt.area, "path", logflood.Clip(r.Path), "panic", p)
			resp = rt.fail(fmt.Errorf("%w: %v", ErrHandlerPanic, p))
		}
	}()
	return rt.handler(ctx, r)
}

func (s *Server) lookup(path, fn string) (route, bool) {
	if path == PathClientRequester {
		rt, ok := s.funcs[fn]
		return rt, ok
	}
	rt, ok := s.paths[path]
	return rt, ok
}

// notFound answers a path or function that is not served. It never echoes
// the path or the function name: they are whatever the client sent
// (issue 22 item 4, reflected markup).
func (s *Server) notFound(path, _ string) Response {
	msg := "unknown path"
	if path == PathClientRequester {
		msg = "unknown function"
	}
	r := phpReply(s.log, errorReply{Error: msg})
	r.Status = fasthttp.StatusNotFound
	return r
}

// nosniff tells browsers to take every reply's content type as sent,
// never to guess HTML in a text/plain body that echoes client input.
func nosniff(ctx *fasthttp.RequestCtx) {
	ctx.Response.Header.Set("X-Content-Type-Options", "nosniff")
}

func (s *Server) write(ctx *fasthttp.RequestCtx, r Response) {
	nosniff(ctx)
	if r.Status == 0 {
		r.Status = fasthttp.StatusOK
	}
	ctx.SetStatusCode(r.Status)
	if r.ContentType != "" {
		ctx.SetContentType(r.ContentType)
	}
	for _, h := range r.Header {
		ctx.Response.Header.Set(h[0], h[1])
	}
	ctx.SetBody(r.Body)
}

// fasthttpError answers a request fasthttp could not read, in the failure
// shape of the route it was meant for.
func (s *Server) fasthttpError(ctx *fasthttp.RequestCtx, err error) {
	// The request's hold of the large-body budget ends here, whatever
	// happens to the connection (bigbody.go).
	busy := len(s.large) > 0 && s.big.release(&ctx.Request.Header)
	if s.paths == nil {
		ctx.Error("server not ready", fasthttp.StatusServiceUnavailable)
		nosniff(ctx)
		return
	}
	if gc, ok := ctx.Conn().(*guardedConn); ok && gc.dropped.Load() {
		// The listener closed the connection to make room while its
		// request arrived (conns.go): no reply can reach the client, and
		// the listener has counted it; it is no request of the access log.
		return
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() && len(ctx.Request.Header.RawHeaders()) == 0 {
		// A connection that sent no request before its read timeout gets no
		// reply (fasthttp would write one nobody asked for): just close it.
		ctx.Conn().Close()
		return
	}
	path, fn := string(ctx.Path()), string(ctx.QueryArgs().Peek("f"))
	switch {
	case busy && errors.Is(err, fasthttp.ErrBodyTooLarge):
		err = ErrBusy
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		err = fmt.Errorf("%w: %w", errBadRequest, wire.ErrBodyTooLarge)
	default:
		err = fmt.Errorf("%w: %w", errBadRequest, err)
	}
	start := time.Now()
	if rt, ok := s.lookup(path, fn); ok {
		resp := rt.fail(err)
		s.write(ctx, resp)
		s.observed(ctx, nil, path, fn, true, rt, resp.Body, start)
		return
	}
	resp := s.notFound(path, fn)
	s.write(ctx, resp)
	s.observed(ctx, nil, path, fn, false, route{}, resp.Body, start)
}

func (s *Server) health(ctx *fasthttp.RequestCtx) {
	nosniff(ctx)
	ctx.SetContentType("text/plain; charset=utf-8")
	status, body := s.healthReport(false)
	ctx.SetStatusCode(status)
	ctx.SetBodyString(body)
}

// HealthDetails is /healthz's reply with its details, for the operator
// listener: a failing check's error, and the cluster's name and members.
func (s *Server) HealthDetails() (status int, body string) { return s.healthReport(true) }

// healthReport is /healthz's status and text. The game port's (details
// false) tells a load balancer what it needs and nobody more: "ok" (with
// "member, N nodes" in a cluster), "starting", "unhealthy: AREA, ..." or
// "NAME failing"; the error of a failing check (which may name a
// database's host) and the cluster's name and nodes' names are details,
// said on the operator listener only.
func (s *Server) healthReport(details bool) (int, string) {
	if !s.ready.Load() {
		return fasthttp.StatusServiceUnavailable, "starting\n"
	}
	if s.healthCheck != nil {
		if bad := s.healthCheck(); len(bad) > 0 {
			return fasthttp.StatusServiceUnavailable, "unhealthy: " + strings.Join(bad, ", ") + "\n"
		}
	}
	if name, err := s.checks.failing(); err != nil {
		msg := name + " failing"
		if details {
			msg += ": " + err.Error()
		}
		return fasthttp.StatusServiceUnavailable, msg + "\n"
	}
	body := "ok\n"
	switch {
	case details && s.healthDetail != nil:
		body += s.healthDetail()
	case s.healthNote != nil:
		body += s.healthNote()
	}
	return fasthttp.StatusOK, body
}

// SetHealthNote adds a line to a healthy /healthz reply, before Serve:
// note on the game port ("member, 3 nodes"), detail on the operator
// listener (the cluster's name and members).
func (s *Server) SetHealthNote(note, detail func() string) {
	s.healthNote, s.healthDetail = note, detail
}

// genericFail answers the generic PHP error array.
func (s *Server) genericFail(err error) Response {
	s.log.Debug("request failed", "err", err)
	return phpReply(s.log, errorReply{Error: publicMessage(err)})
}

// fasthttpLogger sends fasthttp's own messages to slog.
type fasthttpLogger struct{ l *slog.Logger }

// The text goes in an attribute under one fixed message: it holds the
// client's address and up to 200 bytes of its request, so as the message
// every client (or payload) would be a kind of its own to the log-flood
// limiter (host/logflood), and a client could fill its table of kinds and
// so thin out the server's real errors.
func (f fasthttpLogger) Printf(format string, args ...any) {
	f.l.Warn("HTTP connection error", "component", "fasthttp", "detail", fmt.Sprintf(format, args...))
}
