package opmsg

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/internal/modfiles"
)

// TestPrefixKnowsEveryPackage: every package of this module is
// one Strip takes out of operator messages, so that a package
// added later (a new area) does not leak "name: " into them. The list is
// found by walking the module, not kept by hand.
func TestPrefixKnowsEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	names := map[string]string{}
	err := modfiles.Walk(root, func(path string) error {
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		if name := f.Name.Name; name != "main" {
			names[name] = filepath.Dir(path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 20 {
		t.Fatalf("found only %d packages under %s", len(names), root)
	}
	for name, dir := range names {
		if got := Strip(name + ": boom"); got != "boom" {
			t.Errorf("package %s (%s): %q is left as %q; add it to prefix", name, dir, name+": boom", got)
		}
	}
}

func TestStrip(t *testing.T) {
	for in, want := range map[string]string{
		"storage: actors: ask timeout":            "ask timeout",
		"cannot open (storage: not found)":        "cannot open (not found)",
		"unknown login: bob":                      "unknown login: bob",
		"dailyapi: daily.claim: 5 tickets":        "daily.claim: 5 tickets",
		`read "pebble: corrupt"`:                  `read "corrupt"`,
		"the command failed: reports: no such id": "the command failed: no such id",
	} {
		if got := Strip(in); got != want {
			t.Errorf("Strip(%q) = %q, want %q", in, got, want)
		}
	}
}
