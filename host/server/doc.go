// Package server provides the fasthttp host: it routes each request by path
// (and, on /client_requester.php, by the function named in f) to an area's
// handler, gives the handler an owned copy of the request (package wire), and
// writes the handler's reply.
//
// Routes are mounted per area. The host's own (the login functions, the
// patcher, registration, the front page, /healthz) are built in routes.go;
// every other area states its paths and functions as []Route beside its
// handlers (host/cloud, host/plinko, host/guides, host/reports, and any
// area registered with host/area), and the command that starts the server
// mounts them before Serve (host/cli: buildServer, which reads the
// registry of plugin areas, host/area). Each route also says how its
// replies count in the metrics (Route.Outcome). Mount
// refuses a path or function that is already served, so no two areas share
// one. The endpoint reference, docs/endpoints.md, is generated from the
// mounted table (Endpoints).
package server
