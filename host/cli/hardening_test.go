package cli_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/wire"
)

// TestRegistrationLimits: per-address registrations, e-mail length and
// look-alike logins (findings 3 and 6 of issue 9).
func TestRegistrationLimits(t *testing.T) {
	ts := start(t, func(c *config.Config) {
		c.Limits.RegistrationsPerAddress = config.Rate{Burst: 8, Every: config.Duration{Duration: time.Hour}}
	})
	ctx := context.Background()
	post := func(login, email string) (int, string) {
		t.Helper()
		form := url.Values{"login": {login}, "password": {"pw"}}
		if email != "" {
			form.Set("email", email)
		}
		r, err := ts.Client.PostForm(ctx, "/portal/register", form)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error string `json:"error"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("not JSON: %s", r.Body)
		}
		return r.Status, body.Error
	}
	for _, tc := range []struct {
		name, login, email string
		status             int
		errPart            string
	}{
		{"original", "demo", "", 200, ""},
		{"upper case", "DEMO", "", 409, "looks the same"},
		{"Cyrillic e", "dеmo", "", 400, "mix"},
		{"all Cyrillic look-alike", "демо", "", 200, ""}, // a different look: д is not d
		{"fullwidth", "ｄｅｍｏ", "", 400, "ordinary characters"},
		{"digit zero", "dem0", "", 409, "looks the same"},
		{"e-mail of 255 bytes", "mailer", strings.Repeat("a", 243) + "@example.com", 400, "254"},
		{"e-mail of 254 bytes", "mailer", strings.Repeat("a", 242) + "@example.com", 200, ""},
	} {
		status, msg := post(tc.login, tc.email)
		if status != tc.status || !strings.Contains(msg, tc.errPart) {
			t.Errorf("%s: %d %q; want %d containing %q", tc.name, status, msg, tc.status, tc.errPart)
		}
		if strings.Contains(msg, "accounts:") || strings.Contains(msg, "login:") {
			t.Errorf("%s: internal package name in %q", tc.name, msg)
		}
	}
	// Every attempt spends a token, accepted or not: the burst of 8 is gone.
	if status, msg := post("late", ""); status != 429 || !strings.Contains(msg, "too many") {
		t.Errorf("past the burst: %d %q; want 429", status, msg)
	}
}

// TestLogout: f=logout answers as other implementations record it and ends
// the session.
func TestLogout(t *testing.T) {
	ts := start(t, nil)
	ts.Host(t, "account", "create", "--login", "leaver", "--password", "pw")
	ctx := context.Background()
	s, err := ts.Client.Login(ctx, "leaver", "pw")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ts.Client.PostForm(ctx, "/client_requester.php?f=logout", url.Values{"cookie": {s.Cookie}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `a:2:{i:0;b:1;s:12:"client_disco";s:2:"OK";}`; string(r.Body) != want {
		t.Errorf("logout: %q, want %q", r.Body, want)
	}
	r, err = ts.Client.PostForm(ctx, "/client_requester.php?f=logout", url.Values{"cookie": {s.Cookie}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := wire.Unmarshal(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := v.(*wire.Array); !ok || a.Len() != 2 {
		t.Errorf("second logout: %q, want the auth failure shape", r.Body)
	} else if msg, _ := a.String("auth"); msg != "Invalid cookie.1" {
		t.Errorf("second logout: %q", r.Body)
	}
}

// TestServingStopsExitsNonZero: when HTTP serving ends while nobody asked
// for a shutdown, Wait returns an error (the process exits non-zero) instead
// of waiting for a signal with HTTP dead (finding 1).
func TestServingStopsExitsNonZero(t *testing.T) {
	ts := start(t, nil)
	// Serving has begun (a request was answered) ...
	r, err := ts.Client.PostForm(context.Background(), "/healthz", nil)
	if err != nil || r.Status != 200 {
		t.Fatalf("healthz: %v %v", r, err)
	}
	// ... and ends under the runtime's feet (as when the accept loop gives
	// up).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ts.Runtime.Server.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ts.Runtime.Wait(context.Background()) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "HTTP serving stopped") {
			t.Errorf("Wait = %v; want an HTTP-serving-stopped error", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Wait did not return after serving stopped")
	}
}
