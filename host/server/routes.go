package server

import "github.com/honmaster/masterserver/host/login"

// Paths served by the host. Every path and function name the client uses is
// named here and nowhere else.
const (
	PathClientRequester = "/client_requester.php"
	PathPatcher         = "/patcher/patcher.php"
	PathRegister        = "/portal/register"
	PathHealth          = "/healthz"
)

// Areas the host serves itself (the login area is login.AreaName; plugin
// areas are named by their registration in plugins/sdk).
const (
	AreaPatch  = "patch"
	AreaPortal = "portal"
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
}

// builtinRoutes builds the host's own table of paths and of
// client_requester functions; areas add theirs with Mount.
func (s *Server) builtinRoutes() (paths map[string]route, funcs map[string]route) {
	loginRoute := func(h Handler) route { return route{area: login.AreaName, handler: h, fail: s.loginFail} }
	paths = map[string]route{
		PathPatcher:  {area: AreaPatch, handler: s.patchInfo, fail: s.genericFail},
		PathRegister: {area: AreaPortal, handler: s.register, fail: s.registerFail},
	}
	funcs = map[string]route{
		FuncPreAuth:    loginRoute(s.preAuth),
		FuncSRPAuth:    loginRoute(s.srpAuth),
		FuncSwitchAuth: loginRoute(s.switchAuth),
		FuncLogout:     loginRoute(s.logout),
	}
	return paths, funcs
}
