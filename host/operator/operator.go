// Package operator serves the operator listener: a plain net/http server,
// separate from the game port, holding the Prometheus metrics (/metrics),
// Go profiles (/debug/pprof/) and the operator API (/operator/v1/...). Other
// parts mount their pages on it with Handle (public) or HandleAPI (bearer
// token required); the web console mounts its pages the same way.
//
// It listens on loopback unless the configuration allows it off loopback
// (operator.allow_remote); then the profiles need the token as well. Wrong
// tokens are throttled and logged per client address (token.go). Every
// request must name the listener by an IP address, localhost or a name in
// operator.allowed_hosts, so that no web page can reach it by DNS
// rebinding, and a change must not come from another site's page
// (hosts.go).
package operator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/honmaster/masterserver/host/limit"
)

// TokenFile is the file in the data directory that keeps the generated
// operator token.
const TokenFile = "operator.token"

// Server is the operator listener.
type Server struct {
	// clientAddr is SetClientAddr's function; nil: the connection's
	// address.
	clientAddr atomic.Pointer[func(*http.Request) string]
	mux        *http.ServeMux
	srv        *http.Server
	guard      *tokenGuard
	hosts      *hostGuard
	log        *slog.Logger
}

// Options configure a Server.
type Options struct {
	// Token is what the API (and, when Remote, the profiles) accept as
	// "Authorization: Bearer TOKEN"; empty refuses every such request.
	Token string
	// Remote: the listener may be reachable from other machines
	// (operator.allow_remote), so the Go profiles need the token too.
	Remote bool
	// TokenFailures throttles requests without the right token per client
	// address (addrKey). The zero Rate means the default, 10 and one more
	// a minute; Burst 0 with Every > 0 turns the limit off.
	TokenFailures limit.Rate
	// LogEvery is the interval of the failures' log lines (0: a minute).
	LogEvery time.Duration
	// AllowedHosts are the host names, besides IP addresses and
	// localhost, that requests may name in their Host header
	// (operator.allowed_hosts; SetAllowedHosts changes them).
	AllowedHosts []string
	Log          *slog.Logger
	Now          func() time.Time // nil: time.Now
}

// New returns an operator server. Metrics are mounted by the caller
// (Handle), the profiles by New: public on a loopback listener (anyone
// who can reach it can already read the process), behind the token on a
// remote one.
func New(o Options) *Server {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.TokenFailures == (limit.Rate{}) {
		o.TokenFailures = limit.Rate{Burst: 10, Every: time.Minute}
	}
	if o.LogEvery <= 0 {
		o.LogEvery = time.Minute
	}
	s := &Server{mux: http.NewServeMux(), log: o.Log,
		guard: newTokenGuard(o.Token, o.TokenFailures, o.Now, o.LogEvery, o.Log),
		hosts: newHostGuard(o.AllowedHosts, o.Log)}
	s.guard.addrOf, s.hosts.addrOf = s.ClientAddr, s.ClientAddr
	s.srv = &http.Server{
		// The host check first: a refused request reaches no handler
		// and spends no token failure.
		Handler:           nosniff(s.hosts.wrap(s.mux)),
		ReadHeaderTimeout: 10 * time.Second,
		// No WriteTimeout: /debug/pprof/profile streams for its seconds.
		IdleTimeout: 2 * time.Minute,
		ErrorLog:    slog.NewLogLogger(o.Log.Handler(), slog.LevelWarn),
	}
	profile := func(pattern string, h http.HandlerFunc) {
		if o.Remote {
			s.mux.Handle(pattern, s.RequireToken(h))
		} else {
			s.mux.Handle(pattern, h)
		}
	}
	profile("/debug/pprof/", pprof.Index)
	profile("/debug/pprof/cmdline", pprof.Cmdline)
	profile("/debug/pprof/profile", pprof.Profile)
	profile("/debug/pprof/symbol", pprof.Symbol)
	profile("/debug/pprof/trace", pprof.Trace)
	return s
}

// nosniff makes every reply of the operator listener (console pages, the
// API, metrics, pprof) say X-Content-Type-Options: nosniff, so that no
// browser guesses HTML in a reply of another type (issue 22 item 4).
func nosniff(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}

// SetAllowedHosts puts a new operator.allowed_hosts in force (a
// configuration reload), for requests from then on.
func (s *Server) SetAllowedHosts(hosts []string) { s.hosts.set(hosts) }

// SetClientAddr sets how the listener reads the address of the client a
// request came from, for the token failures' limit and the log lines
// (the server gives the console's reading: behind the documented
// proxies, the address X-Forwarded-For names, as the game listener
// reads it). Until it is set, and with nil, it is the connection's
// address: behind a proxy, every client would share the proxy's bucket
// of token failures, and one guesser would lock the operators out.
func (s *Server) SetClientAddr(f func(*http.Request) string) {
	if f == nil {
		s.clientAddr.Store(nil)
		return
	}
	s.clientAddr.Store(&f)
}

// ClientAddr is the address of the client r came from (SetClientAddr),
// without a port.
func (s *Server) ClientAddr(r *http.Request) string {
	if f := s.clientAddr.Load(); f != nil {
		return (*f)(r)
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// Handle mounts a public handler (pattern as http.ServeMux takes it).
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// HandleAPI mounts a handler that requires "Authorization: Bearer TOKEN".
func (s *Server) HandleAPI(pattern string, h http.Handler) { s.mux.Handle(pattern, s.RequireToken(h)) }

// RequireToken wraps h so that only requests bearing the operator token
// reach it; others get 401, or 429 once their address has failed too
// often (token.go).
func (s *Server) RequireToken(h http.Handler) http.Handler { return s.guard.wrap(h) }

// Serve serves on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	err := s.srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops the listener and waits for requests in flight (bounded by
// ctx), then closes what is left (a profile being streamed).
func (s *Server) Shutdown(ctx context.Context) error {
	defer s.guard.flush() // the token failures counted since their last line
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return s.srv.Close()
	}
	return err
}

// Token returns configured when set; otherwise the token kept in
// dataDir/operator.token, generated (32 random bytes, hex) and written with
// mode 0600 on first use.
func Token(configured, dataDir string) (string, error) {
	if configured != "" {
		return configured, nil
	}
	path := filepath.Join(dataDir, TokenFile)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		if t := strings.TrimSpace(string(b)); t != "" {
			return t, nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("operator token: %w", err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	t := hex.EncodeToString(raw)
	if err := os.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("operator token: %w", err)
	}
	return t, nil
}
