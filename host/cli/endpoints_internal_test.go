package cli

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/sdk"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/endpoints.md from the route table")

// endpointsDoc is the generated endpoint reference, from this package.
var endpointsDoc = filepath.Join("..", "..", "docs", "endpoints.md")

// TestEndpointsDoc: docs/endpoints.md is what the route table (every area
// mounted as serve mounts them) renders of the host's own routes, and
// names no area's route (each area carries its own endpoints.md, so an
// imported area leaves this file as it is); -update-docs rewrites it.
func TestEndpointsDoc(t *testing.T) {
	eps := routeTable(t)
	got := renderEndpoints(eps)
	for _, want := range []string{"/patcher/patcher.php", "/portal/register", "srpAuth", "/healthz"} {
		if !strings.Contains(got, want) {
			t.Errorf("reference lacks %s", want)
		}
	}
	areas := hostarea.Names()
	for _, e := range eps {
		if slices.Contains(areas, e.Area) && strings.Contains(got, title(e)) {
			t.Errorf("reference names %s of area %s", title(e), e.Area)
		}
	}
	if *updateDocs {
		if err := os.WriteFile(endpointsDoc, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(endpointsDoc)
	if err != nil || string(have) != got {
		t.Errorf("docs/endpoints.md is stale (or missing: %v); run: go generate ./host/cli", err)
	}
}

// routeTable is the route table of a server built as serve builds it, every
// area mounted, with the bundled plugins in process (only the routes are
// needed).
func routeTable(t *testing.T) []server.Endpoint {
	t.Helper()
	srv, err := buildServer(openTestApp(t), func(a sdk.Area) sdk.Caller { return bundledPlugin(a)() })
	if err != nil {
		t.Fatal(err)
	}
	return srv.Endpoints()
}

// TestEveryAreaCarriesItsReference: each area this binary imports has its
// generated endpoints.md beside its host package (the directory of its
// Start function's source), which the area's own test keeps fresh
// (clitest.CheckAreaReference).
func TestEveryAreaCarriesItsReference(t *testing.T) {
	for _, m := range hostarea.Modules() {
		file, _ := runtime.FuncForPC(reflect.ValueOf(m.Start).Pointer()).FileLine(reflect.ValueOf(m.Start).Pointer())
		if file == "" {
			t.Errorf("area %s: no source file for its Start", m.Area)
			continue
		}
		ref := filepath.Join(filepath.Dir(file), "endpoints.md")
		b, err := os.ReadFile(ref)
		if err != nil || !strings.Contains(string(b), "clitest.CheckAreaReference") {
			t.Errorf("area %s carries no generated %s (%v): add a test calling clitest.CheckAreaReference to its package", m.Area, ref, err)
		}
	}
}
