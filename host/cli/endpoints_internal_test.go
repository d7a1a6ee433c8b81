package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/sdk"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/endpoints.md from the route table")

// endpointsDoc is the generated endpoint reference, from this package.
var endpointsDoc = filepath.Join("..", "..", "docs", "endpoints.md")

// TestEndpointsDoc: docs/endpoints.md is what the route table (every area
// mounted as serve mounts them) renders; -update-docs rewrites it.
func TestEndpointsDoc(t *testing.T) {
	eps := routeTable(t)
	got := renderEndpoints(eps)
	for _, want := range []string{"/patcher/patcher.php", "/portal/register", "srpAuth", "/master/casino/drop/", "/master/storage/store", "/healthz"} {
		if !strings.Contains(got, want) {
			t.Errorf("reference lacks %s", want)
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
