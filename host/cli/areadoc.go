package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/honmaster/masterserver/host/loadtest"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// AreaReference renders the reference an area carries beside its host
// package, endpoints.md: its routes, as a server built as serve builds
// them mounts them (the bundled plugins in process: only the routes are
// read), and its load-test operations. clitest.CheckAreaReference
// compares it with the file from the area's own test, so docs/endpoints.md
// and docs/loadtest.md, which keep the host's own, change with no area.
// hostDoc is the link to docs/endpoints.md from where the file lives ("":
// named, not linked).
func AreaReference(app *App, a sdk.Area, hostDoc string) (string, error) {
	srv, err := buildServer(app, func(a sdk.Area) sdk.Caller { return bundledPlugin(a)() })
	if err != nil {
		return "", err
	}
	eps := slices.DeleteFunc(srv.Endpoints(), func(e server.Endpoint) bool { return e.Area != string(a) })
	var b strings.Builder
	fmt.Fprintf(&b, "# The %s area: endpoints and load-test operations\n\n", a)
	b.WriteString("<!-- Generated from the area's routes (server.Route.Doc) and load-test operations by its test\n")
	b.WriteString("     (clitest.CheckAreaReference); do not edit. Rewrite it with: HONMASTER_UPDATE_DOCS=1 go test -run TestAreaReference . -->\n\n")
	ref := "the master server's docs/endpoints.md"
	if hostDoc != "" {
		ref = fmt.Sprintf("[docs/endpoints.md](%s)", hostDoc)
	}
	fmt.Fprintf(&b, "The conventions every endpoint shares (methods, encodings, the reply's content type) are in\n%s.\n\n", ref)
	b.WriteString("## Endpoints\n\n")
	if len(eps) == 0 {
		b.WriteString("None.\n")
	} else {
		writeEndpoints(&b, eps, "###")
	}
	b.WriteString("\n## Load-test operations\n\n")
	ops := loadtest.AreaOperations(string(a))
	if len(ops) == 0 {
		b.WriteString("None.\n")
		return b.String(), nil
	}
	b.WriteString("`honmaster loadtest --mix NAME=WEIGHT,...` (in a binary that imports the area):\n\n")
	b.WriteString("| operation | requests | what it does and checks |\n|---|---|---|\n")
	for _, op := range ops {
		fmt.Fprintf(&b, "| `%s` | %d | %s |\n", op.Name, op.Requests, orDash(op.Doc))
	}
	return b.String(), nil
}
