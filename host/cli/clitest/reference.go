package clitest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// EnvUpdateDocs names the environment variable that makes
// CheckAreaReference rewrite the file instead of comparing it.
const EnvUpdateDocs = "HONMASTER_UPDATE_DOCS"

// AreaReferenceFile is the generated reference an area carries beside its
// host package (cli.AreaReference).
const AreaReferenceFile = "endpoints.md"

// CheckAreaReference fails the test when the area's endpoints.md, in the
// directory of the package under test (the area's host package), is not
// what its routes and load-test operations render; with
// HONMASTER_UPDATE_DOCS=1 it rewrites the file. Call it from a test of
// the area's own package:
//
//	func TestAreaReference(t *testing.T) { clitest.CheckAreaReference(t, coinflipapi.Area) }
func CheckAreaReference(t *testing.T, a sdk.Area) {
	t.Helper()
	app, _, _ := OpenApp(t)
	got, err := cli.AreaReference(app, a, hostDocLink())
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv(EnvUpdateDocs) == "1" {
		if err := os.WriteFile(AreaReferenceFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(AreaReferenceFile)
	if err != nil || string(have) != got {
		t.Errorf("%s is stale (or missing: %v); run: %s=1 go test -run %s .", AreaReferenceFile, err, EnvUpdateDocs, t.Name())
	}
}

// hostDocLink is the relative link from the package under test to the
// module's docs/endpoints.md, found by walking up to go.mod; "" when that
// module has none (an area of another module).
func hostDocLink() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			doc := filepath.Join(dir, "docs", "endpoints.md")
			if _, err := os.Stat(doc); err != nil {
				return ""
			}
			rel, err := filepath.Rel(wd, doc)
			if err != nil {
				return ""
			}
			return filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}
