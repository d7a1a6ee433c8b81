package console

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"unicode/utf8"

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
	// A file given more than once: the handler reads the first (FormFile),
	// the trail listed every one.
	if r.MultipartForm != nil {
		for _, k := range slices.Sorted(maps.Keys(r.MultipartForm.File)) {
			if n := len(r.MultipartForm.File[k]); n > 1 {
				return fmt.Errorf("the file field %q was given %d times; give one file (nothing was changed)", k, n)
			}
		}
	}
	return nil
}

// checkedForm wraps an area's route (a console page's or a section of
// the account page's) in checkForm's check, before the route runs: a
// refusal goes back to to(r) with its sentence, as the areas' own
// refusals do, and so into the audit trail as a failure. AddPage and
// AddArea wrap every route they register, so no area can skip it.
func checkedForm(h http.Handler, to func(*http.Request) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if err := checkForm(r); err != nil {
				consolepage.Back(w, r, to(r), "", err)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}
