package operator

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestEveryReplyNosniff (issue 22 item 4): every reply of the operator
// listener, refusals and unknown paths included, says nosniff.
func TestEveryReplyNosniff(t *testing.T) {
	s := New(Options{Token: "secret-secret-secret", Log: slog.New(slog.DiscardHandler)})
	s.HandleAPI("GET /api", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "yes") }))
	s.Handle("GET /public", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "<p>hi") }))
	for _, path := range []string{"/api", "/public", "/debug/pprof/", "/no/such/<script>"} {
		w := httptest.NewRecorder()
		s.srv.Handler.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s (%d): X-Content-Type-Options %q, want nosniff", path, w.Code, got)
		}
	}
}
