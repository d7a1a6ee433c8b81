package operator

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func TestTokenGeneratedOnceWithOwnerOnlyMode(t *testing.T) {
	dir := t.TempDir()
	tok, err := Token("", dir)
	if err != nil || len(tok) != 64 {
		t.Fatalf("Token = %q, %v", tok, err)
	}
	fi, err := os.Stat(filepath.Join(dir, TokenFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	again, err := Token("", dir)
	if err != nil || again != tok {
		t.Errorf("second Token = %q, %v; want the stored %q", again, err, tok)
	}
	if got, _ := Token("configured-token-123", dir); got != "configured-token-123" {
		t.Errorf("configured token ignored: %q", got)
	}
}

func TestAPINeedsToken(t *testing.T) {
	s := New(Options{Token: "secret-secret-secret", Log: slog.New(slog.DiscardHandler)})
	s.HandleAPI("GET /api", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "yes") }))
	s.Handle("GET /public", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hi") }))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Shutdown(t.Context()) })
	base := "http://" + ln.Addr().String()
	for _, tt := range []struct {
		path, auth string
		want       int
	}{
		{"/api", "", 401},
		{"/api", "Bearer wrong", 401},
		{"/api", "secret-secret-secret", 401},
		{"/api", "Bearer secret-secret-secret", 200},
		{"/public", "", 200},
		{"/debug/pprof/", "", 200},
	} {
		req, _ := http.NewRequest("GET", base+tt.path, nil)
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s with %q: %d, want %d", tt.path, tt.auth, resp.StatusCode, tt.want)
		}
	}
}
