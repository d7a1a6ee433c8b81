package cli_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/honmaster/masterserver/config"
)

// forwardedTransport adds an X-Forwarded-For header, as a reverse proxy
// appending the client's address would.
type forwardedTransport struct {
	base http.RoundTripper
	hops string
}

func (f forwardedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-For", f.hops)
	return f.base.RoundTrip(r)
}

// TestForwardedForLastHop: as config/defaults.toml says, with
// trust_forwarded_for the session record's ip is the LAST address of
// X-Forwarded-For (the one the proxy appended), never an earlier one the
// client wrote; without it the header is ignored.
func TestForwardedForLastHop(t *testing.T) {
	for _, trust := range []bool{true, false} {
		ts := start(t, func(c *config.Config) { c.Server.TrustForwardedFor = trust })
		ts.Host(t, "account", "create", "--login", "proxied", "--password", "pw")
		ts.Client.HTTP.Transport = forwardedTransport{base: http.DefaultTransport, hops: "203.0.113.9, 198.51.100.7"}
		s, err := ts.Client.Login(context.Background(), "proxied", "pw")
		if err != nil {
			t.Fatal(err)
		}
		want := "198.51.100.7"
		if !trust {
			want = "127.0.0.1"
		}
		if ip, _ := s.Record.String("ip"); ip != want {
			t.Errorf("trust_forwarded_for=%t: ip %q, want %q", trust, ip, want)
		}
	}
}
