package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/loadtest"
	hostmetrics "github.com/honmaster/masterserver/host/metrics"
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
	fmt.Fprintf(&b, "# The %s area: endpoints, commands, metrics and load-test operations\n\n", a)
	b.WriteString("<!-- Generated from the area's routes (server.Route.Doc), commands, metrics and load-test operations by its test\n")
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
	writeAreaCommands(&b, a)
	if err := writeAreaMetrics(&b, app, a); err != nil {
		return "", err
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

// writeAreaCommands lists the area's operator commands (area.Module.Commands).
func writeAreaCommands(b *strings.Builder, a sdk.Area) {
	b.WriteString("\n## Operator commands\n\n")
	m, _ := hostarea.Lookup(a)
	if len(m.Commands) == 0 {
		b.WriteString("None.\n")
		return
	}
	b.WriteString("Run as every operator command is (through the running server's admin socket, else on its data directory):\n\n")
	for _, c := range m.Commands {
		fmt.Fprintf(b, "    honmaster %s %s\n", c.Name, c.Usage)
	}
}

// writeAreaMetrics lists the metrics the area registered at its start,
// those named honmaster_<area>_..., with their help and labels.
func writeAreaMetrics(b *strings.Builder, app *App, a sdk.Area) error {
	b.WriteString("\n## Metrics\n\n")
	fams, err := app.Metrics.Registry.Gather()
	if err != nil {
		return err
	}
	prefix := hostmetrics.Namespace + "_" + string(a) + "_"
	n := 0
	for _, f := range fams {
		if !strings.HasPrefix(f.GetName(), prefix) {
			continue
		}
		if n == 0 {
			b.WriteString("Besides every route's `honmaster_http_requests_total{route,outcome}` and the plugin's\n")
			b.WriteString("`honmaster_plugin_calls_total{area,method,outcome}`:\n\n| metric | type | labels | what it counts |\n|---|---|---|---|\n")
		}
		n++
		labels := map[string]bool{}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = true
			}
		}
		names := slices.Sorted(maps.Keys(labels))
		for i, l := range names {
			names[i] = "`" + l + "`"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", f.GetName(), strings.ToLower(f.GetType().String()), orDash(strings.Join(names, ", ")), f.GetHelp())
	}
	if n == 0 {
		b.WriteString("None of its own (every route's `honmaster_http_requests_total{route,outcome}` and the plugin's\n")
		b.WriteString("`honmaster_plugin_calls_total{area,method,outcome}` count it).\n")
	}
	return nil
}
