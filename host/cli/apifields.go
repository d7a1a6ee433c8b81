package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/operator"
)

// apiRequest is what an operator API request asked for, as its line of
// the audit trail names it: the account (its field "login") and the other
// fields, secrets redacted.
type apiRequest struct {
	account string
	change  []any
}

// readAPIRequest checks r (its form parsed) against the fields its route
// takes (hostarea.APIFields) and returns what it asked for. The error,
// an errUsage worded for the operator, refuses the request before the
// route runs: a field the route does not take (a misspelled "gld" used to
// be ignored, and the grant answered 200 having granted nothing), a field
// given twice (the route read the first "gold", the trail showed both), a
// body that is not what the route takes. What was asked is returned in
// any case, for the trail's line of the refusal.
func readAPIRequest(r *http.Request, fields hostarea.APIFields) (apiRequest, error) {
	var req apiRequest
	req.account, req.change = operator.FormChange(r.Form, "login")
	if fields.JSON && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		fields.JSON = false // no body to read
	}
	if fields.JSON {
		// The trail names what the body asked for, whatever refuses it.
		req, err := readJSONFields(r, fields)
		if k := slices.Sorted(maps.Keys(r.Form)); err == nil && len(k) > 0 {
			err = usageError("unknown field %q in the query: this route takes its fields (%s) in a JSON object as the request's body",
				k[0], strings.Join(fields.Names, ", "))
		}
		return req, err
	}
	for _, k := range slices.Sorted(maps.Keys(r.Form)) {
		if err := checkUTF8(k, r.Form[k]...); err != nil {
			return req, err
		}
		if !slices.Contains(fields.Names, k) {
			return req, unknownField(k, fields)
		}
		if n := len(r.Form[k]); n > 1 && !slices.Contains(fields.Repeatable, k) {
			return req, usageError("the field %q is given %d times; give it once", k, n)
		}
	}
	return req, checkFormBody(r)
}

// checkUTF8 refuses a field whose name or values are not UTF-8 text: the
// storage cannot keep such text (its refusal names its internals), and a
// JSON decoder would have turned it into U+FFFD unseen.
func checkUTF8(name string, values ...string) error {
	if !utf8.ValidString(name) {
		return usageError("a field's name (%q) is not valid UTF-8 text", name)
	}
	for _, v := range values {
		if !utf8.ValidString(v) {
			return usageError("the field %q is not valid UTF-8 text", name)
		}
	}
	return nil
}

func unknownField(k string, fields hostarea.APIFields) error {
	if len(fields.Names) == 0 {
		return usageError("unknown field %q: this route takes no fields", k)
	}
	return usageError("unknown field %q (the fields of this route are %s)", k, strings.Join(fields.Names, ", "))
}

// checkFormBody refuses a body that a form route did not read, whose
// fields the route would never see: a POST's of another type than a form
// (JSON, multipart), any body of a DELETE (Go reads a form body for POST,
// PUT and PATCH only).
func checkFormBody(r *http.Request) error {
	if r.Body == nil || r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	readsBody := r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch
	if readsBody && ct == "application/x-www-form-urlencoded" {
		return nil // ParseForm read it
	}
	var one [1]byte
	if n, _ := io.ReadFull(r.Body, one[:]); n == 0 {
		return nil
	}
	if !readsBody {
		return usageError("this route takes its fields in the query, not in the request's body")
	}
	return usageError("this route takes a form (Content-Type: application/x-www-form-urlencoded), not a body of type %q", r.Header.Get("Content-Type"))
}

// readJSONFields reads the JSON object that is r's body (restoring the
// body for the route) and checks its names. The values are what the
// route decodes: a string as itself, anything else as its JSON text. A
// refusal returns the fields read before it.
func readJSONFields(r *http.Request, fields hostarea.APIFields) (req apiRequest, err error) {
	values := map[string]string{}
	defer func() {
		for _, k := range slices.Sorted(maps.Keys(values)) {
			v := values[k]
			switch {
			case k == "login":
				req.account = v
				continue
			case operator.Secret(k):
				v = "(redacted)"
			}
			req.change = append(req.change, k, v)
		}
	}()
	want := fmt.Sprintf("the request's body must be one JSON object of the fields %s", strings.Join(fields.Names, ", "))
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return req, usageError("the request's body is larger than %d bytes", mb.Limit)
		}
		return req, usageError("the request's body could not be read: %v", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	if !utf8.Valid(b) {
		// encoding/json would read each such byte as U+FFFD: the route
		// would use another text than the one sent.
		return req, usageError("the request's body is not valid UTF-8 text")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return req, usageError("%s", want)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return req, usageError("%s", want)
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return req, usageError("%s", want)
		}
		// A field is refused before the route decodes the body, so a
		// misspelled or doubled name never reaches it (encoding/json
		// matches names case-insensitively, "LOGIN" as "login", and keeps
		// the last of a repeated one: the trail could name another
		// account or value than the route applied).
		if !slices.Contains(fields.Names, k) {
			return req, unknownField(k, fields)
		}
		if _, ok := values[k]; ok {
			return req, usageError("the field %q is given twice; give it once", k)
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			values[k] = s
		} else {
			var c bytes.Buffer
			if json.Compact(&c, v) == nil {
				v = c.Bytes()
			}
			values[k] = string(v)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return req, usageError("%s", want)
	}
	if _, err := dec.Token(); err != io.EOF {
		return req, usageError("%s, with nothing after it", want)
	}
	return req, nil
}
