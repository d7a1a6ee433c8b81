// Package operator serves the operator listener: a plain net/http server,
// separate from the game port, holding the Prometheus metrics (/metrics),
// Go profiles (/debug/pprof/) and the operator API (/operator/v1/...). Other
// parts mount their pages on it with Handle (public) or HandleAPI (bearer
// token required); the web console mounts its pages the same way.
package operator

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
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
	"time"
)

// TokenFile is the file in the data directory that keeps the generated
// operator token.
const TokenFile = "operator.token"

// Server is the operator listener.
type Server struct {
	mux   *http.ServeMux
	srv   *http.Server
	token string
	log   *slog.Logger
}

// New returns an operator server whose API accepts token. Metrics and
// profiles are mounted by the caller (Handle) and by New (pprof).
func New(token string, log *slog.Logger) *Server {
	s := &Server{mux: http.NewServeMux(), token: token, log: log}
	s.srv = &http.Server{
		Handler:           nosniff(s.mux),
		ReadHeaderTimeout: 10 * time.Second,
		// No WriteTimeout: /debug/pprof/profile streams for its seconds.
		IdleTimeout: 2 * time.Minute,
		ErrorLog:    slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	s.mux.HandleFunc("/debug/pprof/", pprof.Index)
	s.mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	s.mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	s.mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	s.mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
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

// Handle mounts a public handler (pattern as http.ServeMux takes it).
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// HandleAPI mounts a handler that requires "Authorization: Bearer TOKEN".
func (s *Server) HandleAPI(pattern string, h http.Handler) { s.mux.Handle(pattern, s.RequireToken(h)) }

// RequireToken wraps h so that only requests bearing the operator token
// reach it; others get 401.
func (s *Server) RequireToken(h http.Handler) http.Handler {
	want := []byte("Bearer " + s.token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if s.token == "" || subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="operator"`)
			http.Error(w, "operator token required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

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
