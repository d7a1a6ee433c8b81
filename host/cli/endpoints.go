package cli

import (
	"fmt"
	"slices"
	"strings"

	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/server"
)

//go:generate go test -run TestEndpointsDoc -update-docs .

// renderEndpoints writes the endpoint reference of the host's own routes
// (docs/endpoints.md) from the route table: every route of an area
// registered in host/area is left out, for the area carries its own
// reference beside its package (AreaReference), so importing an area
// changes no shared file.
func renderEndpoints(eps []server.Endpoint) string {
	areas := hostarea.Names()
	eps = slices.DeleteFunc(slices.Clone(eps), func(e server.Endpoint) bool { return slices.Contains(areas, e.Area) })
	var b strings.Builder
	b.WriteString("# Endpoints\n\n")
	b.WriteString("<!-- Generated from the route table (server.Route.Doc) by `go generate ./host/cli`; do not edit.\n")
	b.WriteString("     TestEndpointsDoc fails when this file is stale. -->\n\n")
	b.WriteString("Every endpoint of the game listener (`server.listen`) that the host serves itself. Requests are `POST` with form fields, in the\n")
	b.WriteString("URL-encoded body, the multipart body or the query string (the body wins); `/client_requester.php`\n")
	b.WriteString("picks its function by the field `f`. PHP replies are PHP-serialized arrays sent as `text/plain; charset=UTF-8`\n")
	b.WriteString("(the original sent `text/html`; the client reads either), every reply with `X-Content-Type-Options: nosniff`.\n")
	b.WriteString("Unknown paths and functions answer HTTP 404 with a PHP array `error` => sentence.\n\n")
	b.WriteString("The endpoints of the feature areas (host/area) are not here: each area\n")
	b.WriteString("carries its own generated reference, `endpoints.md` beside its host package (with its load-test operations),\n")
	b.WriteString("checked by the area's own test; [areas.md](areas.md) links them. So importing an area edits no file here.\n\n")
	writeEndpoints(&b, eps, "##")
	return b.String()
}

// writeEndpoints writes the table of eps and a section per endpoint, under
// headings of the given level.
func writeEndpoints(b *strings.Builder, eps []server.Endpoint, heading string) {
	b.WriteString("| endpoint | area | what it does |\n|---|---|---|\n")
	for _, e := range eps {
		link := title(e)
		if a := anchor(e); a != "" {
			link = fmt.Sprintf("[%s](#%s)", link, a)
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", link, e.Area, orDash(e.Doc.Summary))
	}
	for _, e := range eps {
		fmt.Fprintf(b, "\n%s %s\n\n", heading, title(e))
		if e.Doc.Summary == "" && e.Doc.Reply == "" && len(e.Doc.AllFields()) == 0 {
			fmt.Fprintf(b, "Area `%s`. Not documented yet (fill its `server.Route.Doc`).\n", e.Area)
			continue
		}
		fmt.Fprintf(b, "Area `%s`. %s\n", e.Area, e.Doc.Summary)
		if fields := e.Doc.AllFields(); len(fields) > 0 {
			enc := "form fields"
			if e.Doc.Multipart {
				enc = "multipart form fields"
			}
			fmt.Fprintf(b, "\nRequest (%s):\n\n| field | required | meaning |\n|---|---|---|\n", enc)
			if e.Func != "" {
				fmt.Fprintf(b, "| `f` | yes | `%s` |\n", e.Func)
			}
			for _, f := range fields {
				req := "no"
				if f.Required {
					req = "yes"
				}
				fmt.Fprintf(b, "| `%s` | %s | %s |\n", f.Name, req, orDash(f.Desc))
			}
		}
		if keys := e.Doc.ReplyKeys(); len(keys) > 0 {
			fmt.Fprintf(b, "\nReply keys, in wire order: `%s`.\n", strings.Join(keys, "`, `"))
		}
		if e.Doc.Reply != "" {
			fmt.Fprintf(b, "\nReply: %s\n", e.Doc.Reply)
		}
	}
}

func title(e server.Endpoint) string {
	if e.Func != "" {
		return fmt.Sprintf("`%s` f=`%s`", e.Path, e.Func)
	}
	return "`" + e.Path + "`"
}

// anchor is GitHub's heading anchor for title(e).
func anchor(e server.Endpoint) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title(e)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
