package server

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

// TestRegisterPage: the registration page for people: the form on GET,
// the account on POST, and every refusal as the form again with the
// sentence of /portal/register and its status: no package names, the
// per-address limit with Retry-After, the switch.
func TestRegisterPage(t *testing.T) {
	newServer := func(t *testing.T, mutate func(*config.Config)) (*http.Client, *actors.System) {
		db, err := storage.Open("", &storage.Options{InMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		sys := actors.New(db, actors.Options{})
		t.Cleanup(func() { sys.Shutdown(); db.Close() })
		cfg := config.Default()
		if mutate != nil {
			mutate(cfg)
		}
		s := New(Deps{Config: cfg, Logger: slog.New(slog.DiscardHandler), Accounts: &accounts.Service{Group: srp.DefaultGroup(), Sys: sys}})
		s.ready.Store(true)
		c := serve(t, s)
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		return c, sys
	}
	c, sys := newServer(t, func(cfg *config.Config) {
		cfg.Limits.RegistrationsPerAddress.Burst = 3
		cfg.Limits.RegistrationsPerAddress.Every.Duration = time.Hour // no refill during the test
	})
	status, ct, body := get(t, c, "GET", PathRegisterPage, "")
	if status != 200 || ct != "text/html; charset=utf-8" || !strings.Contains(body, `<form method="post" action="/register">`) {
		t.Fatalf("GET: %d %q\n%s", status, ct, body)
	}
	if status, _, body := get(t, c, "GET", "/", ""); status != 200 || !strings.Contains(body, `href="/register"`) {
		t.Errorf("front page does not link the registration page: %d %s", status, body)
	}
	req, _ := http.NewRequest("GET", "http://host"+PathRegister, nil)
	if r, err := c.Do(req); err != nil || r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != PathRegisterPage {
		t.Errorf("GET %s: %v %v", PathRegister, r, err)
	}
	form := func(login, pw, pw2, email string) string {
		return url.Values{"login": {login}, "password": {pw}, "password2": {pw2}, "email": {email}}.Encode()
	}
	for _, tc := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"created", form("newbie", "secret", "secret", "n@example.com"), 200, `Account <b>newbie</b> created`},
		{"taken", form("newbie", "x", "x", ""), 409, "this login is already taken"},
		{"bad login", form("no spaces", "x", "x", ""), 400, "a login is 1 to 12 letters, digits, &#39;_&#39; or &#39;-&#39;"},
		// The limit (3 per address) is spent by the three tries above.
		{"limited", form("other", "x", "x", ""), 429, "too many registrations from your address; try again later"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := get(t, c, "POST", PathRegisterPage, tc.body)
			if status != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("%d, want %d %q:\n%s", status, tc.status, tc.want, body)
			}
			for _, internal := range []string{"accounts:", "actors:", "storage:", "wire:", "login:"} {
				if strings.Contains(body, internal) {
					t.Errorf("page shows %q:\n%s", internal, body)
				}
			}
			if tc.status != 200 && !strings.Contains(body, `id="error"`) {
				t.Errorf("no error shown:\n%s", body)
			}
		})
	}
	if _, err := sys.DB().LoginID("newbie"); err != nil {
		t.Errorf("account not stored: %v", err)
	}
	if _, err := sys.DB().LoginID("other"); err == nil {
		t.Error("a limited registration created the account")
	}

	// Checks before the account service: they cost no registration.
	c2, _ := newServer(t, nil)
	for _, tc := range []struct{ body, want string }{
		{form("", "x", "x", ""), "choose a login"},
		{form("someone", "", "", ""), "choose a password"},
		{form("someone", "a", "b", ""), "the two passwords differ"},
	} {
		status, _, body := get(t, c2, "POST", PathRegisterPage, tc.body)
		if status != 400 || !strings.Contains(body, tc.want) || !strings.Contains(body, `value="someone"`) && !strings.Contains(tc.body, "login=&") {
			t.Errorf("%s: %d\n%s", tc.body, status, body)
		}
	}

	off, _ := newServer(t, func(cfg *config.Config) { cfg.Portal.RegisterEnabled = false })
	if status, _, body := get(t, off, "GET", PathRegisterPage, ""); status != 403 || !strings.Contains(body, "Registration is disabled") || strings.Contains(body, "<form") {
		t.Errorf("disabled GET: %d\n%s", status, body)
	}
	if status, _, body := get(t, off, "POST", PathRegisterPage, form("x", "y", "y", "")); status != 403 || !strings.Contains(body, "Registration is disabled") {
		t.Errorf("disabled POST: %d\n%s", status, body)
	}
}

// TestRegisterNeedsPost: /portal/register creates an account on POST only,
// from the body's fields: a HEAD or GET with the fields in its query (a
// link, a prefetcher, an <img>) created the account, and put a password in
// a URL. Another method is answered 405 with Allow: POST, in the route's
// JSON shape; a bare GET or HEAD still goes to the page.
func TestRegisterNeedsPost(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	sys := actors.New(db, actors.Options{})
	t.Cleanup(func() { sys.Shutdown(); db.Close() })
	s := New(Deps{Config: config.Default(), Logger: slog.New(slog.DiscardHandler), Accounts: &accounts.Service{Group: srp.DefaultGroup(), Sys: sys}})
	s.ready.Store(true)
	c := serve(t, s)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, tc := range []struct {
		method, login, body string
		status              int
	}{
		{"HEAD", "viahead", "", http.StatusMethodNotAllowed},
		{"GET", "viaget", "", http.StatusMethodNotAllowed},
		{"PUT", "viaput", "login=viaput&password=secret", http.StatusMethodNotAllowed},
		{"POST", "viaquery", "", http.StatusBadRequest}, // the fields in the query only
	} {
		req, _ := http.NewRequest(tc.method, "http://host"+PathRegister+"?login="+tc.login+"&password=secret", strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var reply registerReply
		if tc.method != "HEAD" {
			if err := json.NewDecoder(r.Body).Decode(&reply); err != nil || reply.Error == "" {
				t.Errorf("%s: not the route's JSON error (%v): %+v", tc.method, err, reply)
			}
		}
		r.Body.Close()
		if r.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d", tc.method, r.StatusCode, tc.status)
		}
		if allow := r.Header.Get("Allow"); tc.status == http.StatusMethodNotAllowed && allow != "POST" {
			t.Errorf("%s: Allow %q, want POST", tc.method, allow)
		}
		if _, err := sys.DB().LoginID(tc.login); err == nil {
			t.Errorf("%s %s?login=%s&password=... created the account (status %d)", tc.method, PathRegister, tc.login, r.StatusCode)
		}
	}
	for _, method := range []string{"GET", "HEAD"} {
		req, _ := http.NewRequest(method, "http://host"+PathRegister, nil)
		r, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != PathRegisterPage {
			t.Errorf("bare %s: status %d, Location %q", method, r.StatusCode, r.Header.Get("Location"))
		}
	}
	if status, _, body := get(t, c, "POST", PathRegister, "login=viapost&password=secret"); status != 200 || !strings.Contains(body, `"login":"viapost"`) {
		t.Errorf("POST: %d %s", status, body)
	}
}
