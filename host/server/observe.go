package server

import "time"

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

// observed reports a request to the observer, if any.
func (s *Server) observed(path, fn string, found bool, area string, status int, body []byte, start time.Time) {
	if s.observe == nil {
		return
	}
	if !found {
		area = "unknown"
	}
	s.observe(&RequestInfo{Route: routeName(path, fn, found), Area: area, Status: status, Body: body, Duration: time.Since(start)})
}
