package console

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"unicode/utf8"

	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/console/consolepage"
)

// checkForm refuses, before anything is done, a console form that its
// handler would read otherwise than the audit trail shows it: a field
// given more than once (the handler applies the first value; the trail
// listed every one: gold=5&gold=999999 granted 5 and was audited as
// "5,999999"). The console's forms give each field once. It refuses a
// field whose name or value is not UTF-8 text too: the storage cannot
// keep it (its refusal read `encode "a/": string field contains invalid
// UTF-8`), and no page of the console sends one.
func checkForm(r *http.Request) error {
	for _, k := range slices.Sorted(maps.Keys(r.PostForm)) {
		if !utf8.ValidString(k) {
			return fmt.Errorf("a field's name (%q) is not valid UTF-8 text; nothing was changed", k)
		}
		for _, v := range r.PostForm[k] {
			if !utf8.ValidString(v) {
				return fmt.Errorf("the field %q is not valid UTF-8 text; nothing was changed", k)
			}
		}
		if n := len(r.PostForm[k]); n > 1 {
			return fmt.Errorf("the field %q was given %d times; give each field once (nothing was changed)", k, n)
		}
	}
	return nil
}

// CheckForms returns l with every POST route of its console pages and
// account page sections refusing, before it runs, a form checkForm
// refuses: the refusal goes back to the page (a section's, to the
// account's page) with its sentence, as the areas' own refusals do, and
// so into the audit trail as a failure. The server passes every area
// through it before Console.AddArea.
func CheckForms(l *hostarea.Live) *hostarea.Live {
	if l == nil {
		return nil
	}
	out := *l
	out.Pages = make([]consolepage.Page, len(l.Pages))
	for i, p := range l.Pages {
		to := func(*http.Request) string { return p.Path }
		p.Routes = guardRoutes(p.Routes, to)
		out.Pages[i] = p
	}
	out.AccountPanels = make([]consolepage.AccountPanel, len(l.AccountPanels))
	for i, p := range l.AccountPanels {
		to := func(r *http.Request) string { return "/console/account?login=" + urlQuery(r.PostFormValue("login")) }
		p.Routes = guardRoutes(p.Routes, to)
		out.AccountPanels[i] = p
	}
	return &out
}

// guardRoutes wraps each route of routes in checkForm's check; a refusal
// goes back to to(r).
func guardRoutes(routes map[string]http.Handler, to func(*http.Request) string) map[string]http.Handler {
	if routes == nil {
		return nil
	}
	out := make(map[string]http.Handler, len(routes))
	for pattern, h := range routes {
		out[pattern] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				if err := checkForm(r); err != nil {
					consolepage.Back(w, r, to(r), "", err)
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	}
	return out
}
