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
	// The last one is refused for its host name (hosts.go).
	for _, url := range []string{"http://127.0.0.1:8081/api", "http://127.0.0.1:8081/public", "http://127.0.0.1:8081/debug/pprof/",
		"http://127.0.0.1:8081/no/such/<script>", "http://attacker.example:8081/public"} {
		w := httptest.NewRecorder()
		s.srv.Handler.ServeHTTP(w, httptest.NewRequest("GET", url, nil))
		if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s (%d): X-Content-Type-Options %q, want nosniff", url, w.Code, got)
		}
	}
}
