package operator

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/honmaster/masterserver/host/logflood"
)

// hostGuard keeps web pages off the operator listener (issue: DNS
// rebinding). A page the operator visits at http://attacker.example:8081/
// can make its own name resolve to 127.0.0.1; the browser then sends the
// page's requests to the listener and lets the page read the answers, as
// they are the page's own origin. The one thing the page cannot change is
// the Host header, which names attacker.example. So, as Syncthing,
// Jupyter, Transmission and Caddy's admin endpoint do, the listener
// answers only requests whose Host is:
//
//   - an IP address (no name, so nothing to rebind),
//   - localhost (a name no page can own),
//   - a name the operator listed in operator.allowed_hosts (a reverse
//     proxy's public name);
//   - or absent: an HTTP/1.0 client such as HAProxy's default health check
//     (a browser always sends one).
//
// Anything else is answered 421 before any handler runs, so such a page
// cannot read the profiles or metrics, try console passwords, or spend the
// token-failure budget of 127.0.0.1.
//
// In depth, against a page elsewhere that sends the listener a change
// (any method but GET, HEAD and OPTIONS) at its own address, the check of
// Go's net/http CrossOriginProtection, with the listed names: when the
// browser says where the request comes from (Sec-Fetch-Site, sent to
// HTTPS and loopback addresses), only "same-origin" and "none" (the user's
// own navigation) pass; without it, an Origin header must name the
// request's own host, localhost or a loopback address, or a listed name.
// Anything else is answered 403. A request with neither (curl, the load
// tester) passes, and so does an Origin of "null" without Sec-Fetch-Site:
// the console's pages say Referrer-Policy: no-referrer, under which a
// browser sends its own forms' Origin as "null" (over plain HTTP off
// loopback, no Sec-Fetch-Site either); the console's CSRF tokens and the
// API's bearer token still hold there.
type hostGuard struct {
	names atomic.Pointer[map[string]bool] // operator.allowed_hosts, normalised
	log   *slog.Logger
	// addrOf is the client's address in log lines (Server.ClientAddr).
	addrOf func(*http.Request) string
}

func newHostGuard(allowed []string, log *slog.Logger) *hostGuard {
	g := &hostGuard{log: log, addrOf: func(r *http.Request) string { return r.RemoteAddr }}
	g.set(allowed)
	return g
}

// set puts a list of allowed names in force (start, a reload).
func (g *hostGuard) set(allowed []string) {
	m := make(map[string]bool, len(allowed))
	for _, h := range allowed {
		if n := normHost(h); n != "" {
			m[n] = true
		}
	}
	g.names.Store(&m)
}

// normHost is a host name as the guard compares it: lower case, without
// the final dot of a fully qualified name or the brackets of an IPv6
// address.
func normHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if len(h) >= 2 && h[0] == '[' && h[len(h)-1] == ']' {
		h = h[1 : len(h)-1]
	}
	return strings.TrimSuffix(h, ".")
}

// hostOf is the host name of a Host header (host, host:port, [v6]:port),
// normalised.
func hostOf(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return normHost(h)
	}
	return normHost(hostport)
}

func isIP(h string) bool {
	_, err := netip.ParseAddr(h)
	return err == nil
}

func isLoopback(h string) bool {
	if h == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Unmap().IsLoopback()
}

// hostAllowed reports whether the listener answers a request whose Host
// header is host (see hostGuard).
func (g *hostGuard) hostAllowed(host string) bool {
	if host == "" {
		return true
	}
	h := hostOf(host)
	return h != "" && (isIP(h) || h == "localhost" || (*g.names.Load())[h])
}

// originAllowed reports whether a request that changes something, sent
// to host (already allowed), may come from where its browser says it does:
// fetchSite (the Sec-Fetch-Site header) and origin (the Origin header),
// each "" when absent.
func (g *hostGuard) originAllowed(fetchSite, origin, host string) bool {
	switch fetchSite {
	case "same-origin", "none":
		return true
	case "":
	default: // same-site, cross-site: another page's
		return false
	}
	if origin == "" || origin == "null" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	h := normHost(u.Hostname())
	if h == "" {
		return false
	}
	return (host != "" && h == hostOf(host)) || isLoopback(h) || (*g.names.Load())[h]
}

// safeMethod: a request that changes nothing (no Origin check).
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// wrap answers the requests the guard refuses, and passes the others to
// h.
func (g *hostGuard) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hostAllowed(r.Host) {
			g.log.Warn("operator listener: refused a request for a host name it does not answer to (add it to operator.allowed_hosts if it is yours)",
				"host", logflood.Clip(r.Host), "addr", g.addrOf(r), "method", logflood.Clip(r.Method), "path", logflood.Clip(r.URL.Path))
			refuse(w, http.StatusMisdirectedRequest, fmt.Sprintf("The operator listener does not answer to the host name %q: "+
				"use its IP address or localhost, or add the name to operator.allowed_hosts.", logflood.Clip(hostOf(r.Host))))
			return
		}
		if !safeMethod(r.Method) {
			site, origin := r.Header.Get("Sec-Fetch-Site"), r.Header.Get("Origin")
			if !g.originAllowed(site, origin, r.Host) {
				g.log.Warn("operator listener: refused a change sent from another site's page",
					"origin", logflood.Clip(origin), "fetch_site", logflood.Clip(site), "host", logflood.Clip(r.Host),
					"addr", g.addrOf(r), "method", logflood.Clip(r.Method), "path", logflood.Clip(r.URL.Path))
				refuse(w, http.StatusForbidden, fmt.Sprintf("The operator listener accepts changes only from its own pages, and this one "+
					"came from another site's (Origin %q, Sec-Fetch-Site %q); a reverse proxy's name must be in operator.allowed_hosts.",
					logflood.Clip(origin), logflood.Clip(site)))
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// refuse answers a refusal as one plain sentence.
func refuse(w http.ResponseWriter, status int, msg string) { http.Error(w, msg, status) }
