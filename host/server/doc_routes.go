package server

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
)

// Doc documents a route for the endpoint reference (docs/endpoints.md, made
// from the route table by a test in host/cli). Every field is optional.
type Doc struct {
	// Summary is one sentence on what the endpoint does.
	Summary string
	// Form is a value of the request struct the handler decodes
	// (wire.Request.Decode): its form tags list the fields, with a field's
	// doc tag as its meaning, so the reference cannot drift from the code.
	Form any
	// Fields are fields besides Form's (or all of them, without Form).
	Fields []Field
	// Multipart: the client sends multipart/form-data.
	Multipart bool
	// Reply describes the success reply and the failure replies.
	Reply string
	// ReplyValue is a value of the success reply's type (PHP-serialized
	// with php tags): its top-level keys are listed, in wire order.
	ReplyValue any
}

// Field is one request field of an endpoint.
type Field struct {
	Name     string
	Required bool
	Desc     string
}

// Endpoint is one entry of the route table, for the endpoint reference.
type Endpoint struct {
	Path string // the URL path
	Func string // the /client_requester.php function, or ""
	Area string
	Doc  Doc
}

// Endpoints returns the route table (the host's routes and every mounted
// area's, and /healthz), sorted by path and function.
func (s *Server) Endpoints() []Endpoint {
	var out []Endpoint
	for p, rt := range s.paths {
		out = append(out, Endpoint{Path: p, Area: rt.area, Doc: rt.doc})
	}
	for f, rt := range s.funcs {
		out = append(out, Endpoint{Path: PathClientRequester, Func: f, Area: rt.area, Doc: rt.doc})
	}
	out = append(out, Endpoint{Path: PathHealth, Area: "host", Doc: Doc{
		Summary: "Health check for load balancers and service managers (GET).",
		Reply: "200 `ok` once the server and every plugin are ready (in a cluster, then `member, N nodes`); 503 `starting`, `unhealthy: AREA, ...` naming the areas whose plugin is down, or `NAME failing` (`storage`, `cluster`). " +
			"The operator listener's `/healthz` says the same with the details: a failing check's error, the cluster's name and its members.",
	}})
	slices.SortFunc(out, func(a, b Endpoint) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Func, b.Func))
	})
	return out
}

// AllFields returns the fields of d: Form's, in declaration order, then
// Fields.
func (d Doc) AllFields() []Field {
	var out []Field
	if d.Form != nil {
		t := reflect.TypeOf(d.Form)
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag, ok := f.Tag.Lookup("form")
			if !ok || tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			out = append(out, Field{Name: name, Required: slices.Contains(strings.Split(opts, ","), "required"), Desc: f.Tag.Get("doc")})
		}
	}
	return append(out, d.Fields...)
}

// ReplyKeys returns the top-level keys of ReplyValue's type, in wire order:
// an embedded struct without a php tag contributes its own keys, as on the
// wire (wire.Extras has none); other fields without a php tag are left out.
func (d Doc) ReplyKeys() []string {
	if d.ReplyValue == nil {
		return nil
	}
	return replyKeys(reflect.TypeOf(d.ReplyValue))
}

func replyKeys(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("php")
		if !ok && f.Anonymous {
			out = append(out, replyKeys(f.Type)...)
		}
		if !ok || tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		out = append(out, name)
	}
	return out
}
