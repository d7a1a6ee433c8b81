package console

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// The notice and error boxes of a page show only what the console wrote.
//
// The console answers a form with a redirect whose query carries the
// outcome (back, consolepage.Back: "?notice=..." or "?error=..."), and the
// page it lands on shows it. Shown as the URL had it, the boxes were
// anyone's: /console/signin?error=... put any text a link chose in the
// sign-in page's error box, a phishing aid. Now:
//
//   - a page without a session (the sign-in page) shows no text from the
//     URL at all; the sign-in handler hands its own sentence to the page
//     (withMessage);
//   - a signed-in page shows a redirect's notice or error only when the
//     redirect came from the console for that session: auth signs the
//     query of every redirect a handler answers with (signRedirects: an
//     HMAC under a per-console key of the session's CSRF token and the
//     texts, in "sig"), and render checks it;
//   - text a handler adds to the query itself while it serves the request
//     (the accounts search's error, an area page's) is its own and shown.

// msgKey is the context key of a page's own notice and error
// (withMessage).
type msgKey struct{}

// queryKey is the context key of the query the request's URL brought,
// before any handler added to it (auth).
type queryKey struct{}

type pageMessage struct{ notice, err string }

// withMessage is r with the notice and error its page shows, whatever its
// URL says.
func withMessage(r *http.Request, notice, err string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), msgKey{}, pageMessage{notice, err}))
}

// messages returns the notice and error r's page shows.
func (c *Console) messages(r *http.Request) (notice, errText string) {
	if m, ok := r.Context().Value(msgKey{}).(pageMessage); ok {
		return m.notice, m.err
	}
	s, _ := r.Context().Value(ctxKey{}).(*session)
	if s == nil {
		return "", "" // signed out: nothing from the URL
	}
	q := r.URL.Query()
	brought, _ := r.Context().Value(queryKey{}).(url.Values)
	added := func(key string) string {
		now, was := q[key], brought[key]
		if len(was) > len(now) || !slices.Equal(was, now[:len(was)]) {
			was = nil // the handler rewrote the query: all of it is the handler's
		}
		if rest := now[len(was):]; len(rest) > 0 {
			return rest[0]
		}
		return ""
	}
	notice, errText = added("notice"), added("error")
	if notice != "" || errText != "" {
		return notice, errText
	}
	n, e := q.Get("notice"), q.Get("error")
	if (n != "" || e != "") && hmac.Equal([]byte(q.Get("sig")), []byte(c.signMessage(s, n, e))) {
		return n, e
	}
	return "", ""
}

// signMessage is the "sig" of a redirect's notice n and error e for
// session s.
func (c *Console) signMessage(s *session, n, e string) string {
	m := hmac.New(sha256.New, c.sigKey[:])
	for _, part := range []string{s.csrf, n, e} {
		m.Write([]byte(part))
		m.Write([]byte{0})
	}
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// signRedirects signs the notice and error of every redirect a signed-in
// request is answered with (see messages).
type signRedirects struct {
	http.ResponseWriter
	c *Console
	s *session
}

func (w *signRedirects) WriteHeader(status int) {
	if status >= 300 && status < 400 {
		w.sign()
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *signRedirects) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sign adds "sig" to the Location of a redirect to a console page that
// carries a notice or an error (and drops one the target already had).
func (w *signRedirects) sign() {
	h := w.Header()
	u, err := url.Parse(h.Get("Location"))
	if err != nil || u.IsAbs() || u.Host != "" || !strings.HasPrefix(u.Path, Prefix) {
		return
	}
	q := u.Query()
	n, e := q.Get("notice"), q.Get("error")
	if n == "" && e == "" && !q.Has("sig") {
		return
	}
	q.Del("sig")
	if n != "" || e != "" {
		q.Set("sig", w.c.signMessage(w.s, n, e))
	}
	u.RawQuery = q.Encode()
	h.Set("Location", u.String())
}
