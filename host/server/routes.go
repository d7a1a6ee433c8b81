package server

import (
	"context"

	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/wire"
)

// Paths the host serves itself. Each area names its own paths and functions
// beside its handlers and mounts them (Route, Mount).
const (
	PathClientRequester = "/client_requester.php"
	PathPatcher         = "/patcher/patcher.php"
	PathRegister        = "/portal/register"
	PathHealth          = "/healthz"
	// PathFront is the server's front page, the default icb_url.
	PathFront = "/"
	// PathPatches is the default base URL of the patch files ([[patch]]
	// url): this server serves none, and says so there rather than 404.
	PathPatches = "/patches/"
)

// PathRegisterPage is the registration page for people (a form; portal.go).
const PathRegisterPage = "/register"

// Areas the host serves itself (the login area is login.AreaName; plugin
// areas are named by their registration in plugins/sdk).
const (
	AreaPatch  = "patch"
	AreaPortal = "portal"
	AreaFront  = "front"
)

// Functions of /client_requester.php, selected by f.
const (
	FuncPreAuth    = "pre_auth"
	FuncSRPAuth    = "srpAuth"
	FuncSwitchAuth = "switch_auth"
	FuncLogout     = "logout"
)

// route is one entry of the table: how to serve it and how to fail on it.
type route struct {
	area    string
	handler Handler
	fail    FailFunc
	doc     Doc
	outcome func([]byte) string
	counted func(outcome string)
	account AccountOf // Route.Account
}

// Route is a path, or a /client_requester.php function, an area serves.
// Areas state their own routes (as Caddy modules state their own identity);
// Mount adds them to the host and refuses a clash.
type Route struct {
	// Path served, or "" when Func is set.
	Path string
	// Func is a /client_requester.php function (the request's f, taken from
	// the query or else the form); set it instead of Path.
	Func    string
	Area    string
	Handler Handler
	Fail    FailFunc // nil: the generic PHP error array
	Doc     Doc      // for the endpoint reference (docs/endpoints.md)
	// Outcome says how an HTTP 200 reply of the route counts in the
	// metrics and the access log: OutcomeOK, OutcomeRefused, OutcomeError
	// or a name of the area's own ("" or a nil Outcome: ok, unless the
	// body is the generic error array). Most failures of this protocol
	// are HTTP 200 with an error body, which only the area can read.
	Outcome func(body []byte) string
	// Counted, when set, is told how each answered request of the route
	// counted (the metrics' outcome: OutcomeOK, OutcomeRefused, ... or a
	// status class such as "client_error"), for the area's own counters.
	// It runs on the request's goroutine and must be quick.
	Counted func(outcome string)
	// Limits, for a Path, are wire's limits of its requests when they are
	// not the server's (server.body_limit, wire's default counts of fields
	// and files): a zero field keeps the default; MaxBody at most
	// server.large_body_limit, and at least server.body_limit. A body above
	// server.body_limit is read only while server.large_body_budget lasts
	// (bigbody.go); Mount (before Serve) refuses limits on a Func.
	Limits wire.Limits
	// Account, when set, names the account a request of the route is
	// about, in cluster mode: the request is served on that account's
	// home node (see AccountOf). nil, or false for a request: the host's
	// rule (the login of the login functions, else the "cookie" field's
	// session). An area whose requests write an account they name some
	// other way (the matches area: a game server's session names its
	// game-host account, and c_conn's cookie is a player's) sets it, so
	// that every write of that account is made by its home's actor.
	Account AccountOf
}

// Outcomes of a reply with HTTP status 200, as Route.Outcome names them.
const (
	OutcomeOK      = "ok"
	OutcomeRefused = "refused" // answered with a refusal (bad cookie, insufficient funds, bad input ...)
	OutcomeError   = "error"   // the server could not serve it (internal error, plugin unavailable)
)

// builtinRoutes builds the host's own table of paths and of
// client_requester functions; areas add theirs with Mount.
func (s *Server) builtinRoutes() (paths map[string]route, funcs map[string]route) {
	loginRoute := func(h Handler, d Doc) route {
		return route{area: login.AreaName, handler: h, fail: s.loginFail, doc: d}
	}
	const authFailure = "Failure: HTTP 200 `a:2:{s:4:\"auth\";s:N:\"MESSAGE\";i:0;b:0;}` (messages in host/login/failure.go)."
	paths = map[string]route{
		PathPatcher: {area: AreaPatch, handler: s.patchInfo, fail: s.genericFail, doc: Doc{
			Summary: "Patch information for the client's os and arch, from the [[patch]] settings.",
			Form:    patchRequest{}, ReplyValue: patchReply{},
			Reply: "Index 0 holds `version`, `os`, `arch`, `url`, `url2`, `latest_version`, `latest_manifest_checksum`, `latest_manifest_size`. No entry for the os/arch, or a bad request: the PHP array `error` => sentence.",
		}},
		PathRegister: {area: AreaPortal, handler: s.register, fail: s.registerFail, doc: Doc{
			Summary: "Creates an account (portal.register_enabled): POST, the fields in the body (never the query).",
			Form:    registerRequest{},
			Reply:   "JSON. 200 `{\"account_id\":N,\"login\":\"L\"}`; 400 (a rule broken, a field missing), 403 (registration off), 405 with `Allow: POST` (another method; a bare GET or HEAD is sent to /register with 303), 409 (login taken, or too like one), 429 with Retry-After (limits.registrations_per_address), 500, 503 (nothing saved, or the outcome unknown: the account may have been created): `{\"error\":\"sentence\"}`.",
		}},
		PathRegisterPage: {area: AreaPortal, handler: s.registerPageHandler, fail: s.registerPageFail, doc: Doc{
			Summary: "The registration page for people: GET shows the form, POST creates the account (the same switch, limits and messages as /portal/register).",
			Form:    registerPageForm{},
			Reply:   "HTML. 200 with the form or \"Account L created\"; on a refusal the form again with the sentence, and the status of /portal/register (400, 403, 409, 429 with Retry-After, 503).",
		}},
		PathFront: {area: AreaFront, handler: s.front, fail: s.genericFail, doc: Doc{
			Summary: "The server's front page (the default client.icb_url).",
			Reply:   "200, a short HTML page.",
		}},
		PathPatches: {area: AreaPatch, handler: s.patches, fail: s.genericFail, doc: Doc{
			Summary: "The default base URL of the patch files ([[patch]] url): this server serves no patch files.",
			Reply:   "200, a short HTML page saying so (the files under it are 404: set [[patch]] url to a patch mirror).",
		}},
	}
	funcs = map[string]route{
		FuncPreAuth: loginRoute(s.preAuth, Doc{
			Summary: "SRP step 1: the client's public value A for a login.",
			Form:    preAuthRequest{},
			Reply:   "`salt`, `salt2`, `B` (PHP array). " + authFailure,
		}),
		FuncSRPAuth: loginRoute(s.srpAuth, Doc{
			Summary: "SRP step 2: the client's proof; logs in.",
			Form:    srpAuthRequest{},
			Reply:   "The 60-entry session record (proof M2, cookie, account data). " + authFailure,
		}),
		FuncSwitchAuth: loginRoute(s.switchAuth, Doc{
			Summary: "Switches to another account of the same main account.",
			Form:    switchAuthRequest{},
			Reply:   "The 59-entry session record of that account with a new cookie. " + authFailure,
		}),
		FuncLogout: loginRoute(s.logout, Doc{
			Summary: "Ends the session of the cookie.",
			Form:    logoutRequest{},
			Reply:   "`a:2:{i:0;b:1;s:12:\"client_disco\";s:2:\"OK\";}` as independent clients record it. " + authFailure,
		}),
	}
	return paths, funcs
}

// patches answers the default patch base URL: the patch reply points the
// client here unless [[patch]] url names a mirror, so it must not be a 404.
// With version equal to latest_version the client fetches nothing from it.
func (s *Server) patches(context.Context, *wire.Request) Response {
	return Text("text/html; charset=utf-8", "<!doctype html><title>honmaster patches</title><p>This server serves no patch files. "+
		"Its operator sets the [[patch]] url setting to a patch mirror.</p>\n")
}

// front answers the front page: the default icb_url of the login record
// (the client's in-game browser) points here, so it must not be a 404.
func (s *Server) front(context.Context, *wire.Request) Response {
	page := "<!doctype html><title>honmaster</title><p>This is a Heroes of Newerth master server (honmaster).</p>\n"
	if s.conf().Portal.RegisterEnabled {
		page += "<p><a href=\"" + PathRegisterPage + "\">Create an account</a></p>\n"
	}
	return Text("text/html; charset=utf-8", page)
}
