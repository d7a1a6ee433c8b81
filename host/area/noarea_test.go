package area_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// hostParts are the host's packages that serve every area alike: they
// reach the areas through this registry's hooks only (Module, Live).
var hostParts = []string{"../cli", "../console", "../operator", "../metrics", "../loadtest"}

// TestHostPartsNameNoArea keeps the host's shared packages free of area
// knowledge: no Go file of theirs (tests aside) imports an area's package
// (its host package, its contract or its plugin) or has an identifier or
// a string that names an area, and no template or asset of theirs names
// one. Comments may (they give examples). The one exception is the import
// line of each built-in area in host/cli/builtin.go.
//
// The areas are found in the module's source, not listed here: every
// contract (sdk.RegisterArea("name")) and every package that registers
// with the host (area.Register) names one, so a new area is covered the
// day it is added.
//
// Tests are left out: host/cli's end-to-end tests drive the built-in
// areas through the real server on purpose, and host/cli/clitest is
// their helper.
//
// Allowed by name below, as not done yet (issue #37): the load test
// report's cloud and guide-vote figures (host/loadtest/report.go's
// Consistency: the JSON report's fields cloud_* and votes_*, which the
// cloud and guides areas' Check fill; an area-neutral report would rename
// them). An allowance that is no longer needed fails the test, so that it
// goes too.
func TestHostPartsNameNoArea(t *testing.T) {
	names, pkgs := areasInSource(t)
	if len(names) < 4 || len(pkgs) < 4 {
		t.Fatalf("found areas %v in packages %v: the scan is broken", names, pkgs)
	}
	word := regexp.MustCompile(`(?i)` + strings.Join(names, "|"))
	pending := map[string][]string{
		filepath.Join("..", "loadtest", "report.go"): {"cloud", "guides"},
	}
	used := map[string]bool{}
	allowed := func(path, name string) bool {
		name = strings.ToLower(name)
		if slices.Contains(pending[path], name) {
			used[path+" "+name] = true
			return true
		}
		return false
	}
	checked := 0
	for _, dir := range hostParts {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" || d.Name() == "clitest" {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(path, "_test.go") {
				return nil
			}
			checked++
			if !strings.HasSuffix(path, ".go") {
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				for i, line := range strings.Split(string(b), "\n") {
					if m := word.FindString(prose(line)); m != "" && !allowed(path, m) {
						t.Errorf("%s:%d names the area %q: let the area add it (host/area hooks)", path, i+1, m)
					}
				}
				return nil
			}
			checkGoFile(t, path, word, pkgs, func(name string) bool { return allowed(path, name) })
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for path, names := range pending {
		for _, n := range names {
			if !used[path+" "+n] {
				t.Errorf("%s no longer names %s: remove its allowance", path, n)
			}
		}
	}
	if checked < 60 {
		t.Fatalf("only %d files checked", checked)
	}
}

// checkGoFile reports path's imports of an area's package, and its
// identifiers and strings that name an area.
func checkGoFile(t *testing.T, path string, word *regexp.Regexp, pkgs []string, allowed func(name string) bool) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	builtin := filepath.Base(path) == "builtin.go" && filepath.Base(filepath.Dir(path)) == "cli"
	imports := map[*ast.BasicLit]bool{}
	for _, im := range f.Imports {
		imports[im.Path] = true
		p, _ := strconv.Unquote(im.Path.Value)
		if builtin && im.Name != nil && im.Name.Name == "_" {
			continue // the one import line of a built-in area
		}
		if m := word.FindString(p); (areaPackage(p, pkgs) || m != "") && (m == "" || !allowed(m)) {
			t.Errorf("%s imports %s, an area's package: let the area register what the host needs (host/area)", fset.Position(im.Pos()), p)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if m := word.FindString(x.Name); m != "" && !allowed(m) {
				t.Errorf("%s: %s names the area %q", fset.Position(x.Pos()), x.Name, m)
			}
		case *ast.BasicLit:
			if x.Kind == token.STRING && !imports[x] {
				if m := word.FindString(prose(x.Value)); m != "" && !allowed(m) {
					t.Errorf("%s: the string %s names the area %q", fset.Position(x.Pos()), x.Value, m)
				}
			}
		}
		return true
	})
}

// english are phrases where an area's name is an English word, not the
// area (strings and templates are read without them).
var english = []string{
	"reports the login", // host/cli/ops.go: account delete's advice
	"account matches",   // host/console/templates/accounts.html
	"50 matches shown",  // (the same)
}

// prose is s without the english phrases.
func prose(s string) string {
	for _, p := range english {
		s = strings.ReplaceAll(s, p, "")
	}
	return s
}

// areaPackage reports whether import path p is one of pkgs or inside one.
func areaPackage(p string, pkgs []string) bool {
	for _, a := range pkgs {
		if p == a || strings.HasPrefix(p, a+"/") {
			return true
		}
	}
	return false
}

// areasInSource scans the module for the areas: their names (the
// contracts' sdk.RegisterArea arguments, and the area.Register calls'
// packages' names) and their packages (every package that registers a
// contract or an area, and the plugins' directories).
func areasInSource(t *testing.T) (names, pkgs []string) {
	t.Helper()
	const module = "github.com/honmaster/masterserver"
	root := "../.."
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	contract := regexp.MustCompile(`sdk\.RegisterArea\("([a-z0-9_]+)"\)`)
	register := regexp.MustCompile(`\barea\.Register\(area\.Module\{`)
	add := func(list *[]string, s string) {
		if !slices.Contains(*list, s) {
			*list = append(*list, s)
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || (strings.HasPrefix(n, ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := module + "/" + filepath.ToSlash(rel)
		for _, m := range contract.FindAllSubmatch(b, -1) {
			add(&names, string(m[1]))
			add(&pkgs, pkg)
		}
		if register.Match(b) && !strings.HasSuffix(rel, filepath.Join("host", "area")) {
			add(&pkgs, pkg)
			add(&names, filepath.Base(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	plugins, err := os.ReadDir(filepath.Join(root, "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range plugins {
		if d.IsDir() && d.Name() != "sdk" && d.Name() != "supervisor" {
			add(&pkgs, module+"/plugins/"+d.Name()) // the bundled plugins and the examples
		}
	}
	slices.Sort(names)
	return names, pkgs
}
