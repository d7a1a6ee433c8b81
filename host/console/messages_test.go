package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/console"
)

// The notice and error boxes show only what the console wrote, never free
// text from a link's URL. Before, /console/signin?error=... (and any page
// with ?error= or ?notice=) showed whatever text the link carried, to
// anyone who followed it: a phishing aid.
func TestMessagesComeFromTheConsoleOnly(t *testing.T) {
	e := newEnv(t, console.Deps{})
	const evil = "Session expired: sign in again at evil.example"
	q := "?error=" + url.QueryEscape(evil) + "&notice=" + url.QueryEscape(evil)
	hasEvil := func(page string) bool { return strings.Contains(page, "evil.example") }

	// Signed out: the sign-in page shows nothing from its URL, but its own
	// answer to a failed sign-in.
	c := client(t)
	if _, page := get(t, c, e.srv.URL+"/console/signin"+q); hasEvil(page) || strings.Contains(page, `id="error"`) {
		t.Errorf("the sign-in page shows its URL's text:\n%s", page)
	}
	if status, page := e.signIn(t, c, "admin", "wrong"); status != http.StatusUnauthorized || !strings.Contains(page, console.ErrSignIn.Error()) {
		t.Errorf("a failed sign-in: %d, want 401 and its sentence:\n%s", status, page)
	}

	// Signed in: a link's text is not shown, with or without a made-up sig.
	e.signIn(t, c, "admin", "admin-pw")
	for _, u := range []string{"/console/" + q, "/console/accounts" + q + "&sig=00112233445566778899aabbccddeeff", "/console/cloud" + q} {
		if _, page := get(t, c, e.srv.URL+u); hasEvil(page) {
			t.Errorf("%s shows its URL's text:\n%s", u, page)
		}
	}
	// The console's own answers are shown: a form's error, through its
	// redirect ...
	_, page := get(t, c, e.srv.URL+"/console/account?login=player")
	tok := csrfOf(t, page)
	noFollow := *c
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := noFollow.PostForm(e.srv.URL+"/console/account/grant", url.Values{"csrf": {tok}, "login": {"player"}, "gold": {"lots"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	_, page = get(t, c, e.srv.URL+loc)
	if !strings.Contains(page, `id="error"`) || !strings.Contains(page, "gold must be a whole number") {
		t.Fatalf("the grant's error after its redirect (%s):\n%s", loc, page)
	}
	// ... and an error a page finds while it serves the request, even
	// when the URL brought text of its own.
	if _, page := get(t, c, e.srv.URL+"/console/cloud?login=ghost&error="+url.QueryEscape(evil)); hasEvil(page) || !strings.Contains(page, "unknown login") {
		t.Errorf("the cloud page's own error:\n%s", page)
	}
	// The redirect's text changed, or shown to another session: not shown.
	u, _ := url.Parse(loc)
	v := u.Query()
	v.Set("error", evil)
	u.RawQuery = v.Encode()
	if _, page := get(t, c, e.srv.URL+u.String()); hasEvil(page) {
		t.Errorf("a redirect's signature vouched for other text:\n%s", page)
	}
	other := client(t)
	e.signIn(t, other, "admin", "admin-pw")
	if _, page := get(t, other, e.srv.URL+loc); strings.Contains(page, "gold must be a whole number") {
		t.Errorf("another session shows this session's redirect text:\n%s", page)
	}
}
