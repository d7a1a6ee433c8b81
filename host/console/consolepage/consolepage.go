// Package consolepage is what an area needs to add pages to the web console
// (host/console) from its own package: the page's declaration, and the
// helpers its handlers call to render inside the console's layout. It
// imports nothing of the host but its internal message helper, so any
// area's package may import it without an import cycle.
//
// A page's handlers run only for a signed-in operator, after the CSRF
// check of a POST; the console puts what Render needs in the request's
// context.
package consolepage

import (
	"bytes"
	"context"
	"html/template"
	"net/http"
	"net/url"
	"time"

	"github.com/honmaster/masterserver/host/internal/opmsg"
	"github.com/honmaster/masterserver/storage"
)

// Page is a console page an area adds: a link in the navigation and its
// handlers.
type Page struct {
	Path    string       // the link's target, under /console/, e.g. "/console/guides"
	Title   string       // the navigation label
	Handler http.Handler // serves GET Path
	// Routes are the page's other patterns, as http.ServeMux reads them
	// ("POST /console/guides/import"), each under /console/.
	Routes map[string]http.Handler
}

// AccountPanel is a section an area adds to the console's account page
// (/console/account?login=L), after the console's own sections. The
// console executes Template (html/template: what Data returns is
// escaped) with an AccountView, only for a signed-in operator; the
// panel's forms post to its Routes, which the console serves behind its
// sign-in and CSRF check.
type AccountPanel struct {
	// Summary: the panel is rows (<tr><th>Name</th><td>...</td></tr>) of
	// the page's summary table, after the console's own rows, rather than
	// a section of its own.
	Summary bool
	// Template is the panel's HTML. Its forms carry the hidden field
	// <input type="hidden" name="csrf" value="{{.CSRF}}">.
	Template *template.Template
	// Data is what the template shows for account a (AccountView.Data);
	// an error is logged and the panel left out of the page.
	Data func(r *http.Request, a *storage.Account) (any, error)
	// Routes are the panel's form targets, as Page.Routes
	// ("POST /console/account/suspend"), each under /console/.
	Routes map[string]http.Handler
}

// AccountView is what an AccountPanel's template gets.
type AccountView struct {
	CSRF  string // the signed-in operator's form token
	Login string // the account's login
	Data  any    // AccountPanel.Data's value
}

// Card is a figure an area adds to the console's dashboard.
type Card struct {
	ID    string // the figure's element id on the page, e.g. "drops"
	Title string // its label, e.g. "Drops / min"
	// Total is a cumulative count (a counter of the area's): the card
	// shows its rate per minute over the last minutes, as the dashboard's
	// logins. Value is shown as it is instead when Total is nil.
	Total func() float64
	Value func() string
}

// Renderer is what the console gives a page's request (WithRenderer).
type Renderer interface {
	// Render writes the page with the console's layout: body is the
	// page's own HTML.
	Render(w http.ResponseWriter, r *http.Request, title string, body template.HTML)
	// CSRF is the signed-in operator's form token.
	CSRF() string
	// Operator is the signed-in operator's login.
	Operator() string
}

type ctxKey struct{}

// WithRenderer is the request with its console renderer (the console
// calls it before a page's handler).
func WithRenderer(r *http.Request, rd Renderer) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), ctxKey{}, rd))
}

// Render writes an area's page with the console's layout; body is the
// page's own HTML (escape what it holds: build it with html/template, and
// put CSRFField in its forms). Outside a console request it answers 500.
func Render(w http.ResponseWriter, r *http.Request, title string, body template.HTML) {
	rd, ok := r.Context().Value(ctxKey{}).(Renderer)
	if !ok {
		http.Error(w, "not a console page request", http.StatusInternalServerError)
		return
	}
	rd.Render(w, r, title, body)
}

// RenderTemplate executes t with data and writes the result as Render
// does. When t fails it answers 500 and returns the error, for the
// caller's log.
func RenderTemplate(w http.ResponseWriter, r *http.Request, title string, t *template.Template, data any) error {
	var body bytes.Buffer
	if err := t.Execute(&body, data); err != nil {
		http.Error(w, "page failed; see the server's log", http.StatusInternalServerError)
		return err
	}
	Render(w, r, title, template.HTML(body.String()))
	return nil
}

// CSRFField is the hidden form field a page's POST forms must carry.
func CSRFField(r *http.Request) template.HTML {
	rd, ok := r.Context().Value(ctxKey{}).(Renderer)
	if !ok {
		return ""
	}
	return template.HTML(`<input type="hidden" name="csrf" value="` + template.HTMLEscapeString(rd.CSRF()) + `">`)
}

// Now is the console's clock for a page request (time.Now outside a
// console request, or when the console has none of its own): the time an
// area's page and account panel act at, the one the console shows the
// account's state at.
func Now(r *http.Request) time.Time {
	if c, ok := r.Context().Value(ctxKey{}).(interface{ Now() time.Time }); ok {
		return c.Now()
	}
	return time.Now()
}

// Guard refuses (with a sentence for the operator) an action of a page
// request on account id when the console acts on no such account: one of
// another operator's accounts (see the console's guard). A page that acts
// on an account it names otherwise than by a "login" form field under
// /console/account/ (those the console checks itself), such as a report's
// reportee, calls it before it changes anything. Outside a console
// request it refuses nothing.
func Guard(r *http.Request, id storage.AccountID) error {
	if g, ok := r.Context().Value(ctxKey{}).(interface {
		Guard(storage.AccountID) error
	}); ok {
		return g.Guard(id)
	}
	return nil
}

// Operator returns the login of the signed-in operator of a page request.
func Operator(r *http.Request) string {
	if rd, ok := r.Context().Value(ctxKey{}).(Renderer); ok {
		return rd.Operator()
	}
	return ""
}

// Back redirects to the console page to (a path under /console/, with its
// query) with a notice, or with err's message when err is not nil: the
// layout shows either above the page. err's message is shown to the
// operator without the package prefixes of Go errors (opmsg.Strip): word
// it for them. The console signs the redirect's text for the operator's
// session and the page shows it only with that signature, so text that
// someone else put in a link's URL is never shown (host/console
// messages.go); a page that finds an error while it serves a GET may add
// "error" to r.URL's query before it renders instead.
func Back(w http.ResponseWriter, r *http.Request, to, notice string, err error) {
	u, perr := url.Parse(to)
	if perr != nil || u.IsAbs() || u.Host != "" {
		u = &url.URL{Path: "/console/"}
	}
	q := u.Query()
	if err != nil && opmsg.InvalidUTF8(err) {
		q.Set("error", opmsg.NotUTF8)
	} else if err != nil {
		q.Set("error", opmsg.Strip(err.Error()))
	} else if notice != "" {
		q.Set("notice", notice)
	}
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}
