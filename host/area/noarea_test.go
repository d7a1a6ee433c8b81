package area_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
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
// Names are matched as words (areaWord), not as any part of a word: the
// load tester's Mismatches names no area, PathGuides and CloudOK do.
//
// Tests are left out: host/cli's end-to-end tests drive the built-in
// areas through the real server on purpose, and host/cli/clitest is
// their helper.
func TestHostPartsNameNoArea(t *testing.T) {
	names, pkgs := areasInSource(t)
	if len(names) < 4 || len(pkgs) < 4 {
		t.Fatalf("found areas %v in packages %v: the scan is broken", names, pkgs)
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
			found, err := scanFile(path, names, pkgs)
			for _, f := range found {
				t.Error(f)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 60 {
		t.Fatalf("only %d files checked", checked)
	}
}

// TestNoAreaScanCatches plants area names in a Go file and a template
// and scans them as TestHostPartsNameNoArea scans the host's packages:
// each planted name is found, and the words that only contain an area's
// name, or name it in English prose, are not.
func TestNoAreaScanCatches(t *testing.T) {
	names, pkgs := areasInSource(t)
	for _, n := range []string{"cloud", "daily", "guides", "matches", "plinko"} {
		if !slices.Contains(names, n) {
			t.Fatalf("area %s not found (found %v): plant other names", n, names)
		}
	}
	dir := t.TempDir()
	goFile := filepath.Join(dir, "planted.go")
	src := `package planted

import (
	"fmt"

	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi" // 6: an area's package
	_ "example.com/daily/thing"                                  // 7: names one
)

const PathGuides = "/x" // 10

type Consistency struct {
	CloudOK    int      ` + "`json:\"cloud_ok\"`" + `   // 13: the field and its tag
	Mismatches []string ` + "`json:\"mismatches\"`" + ` // 14: no area
}

func (c *Consistency) Mismatch(m string) { fmt.Println(m, "50 matches shown", "Mismatch!") } // 17: no area

var s = "/api/daily/claim" // 19

var n = plinkoapi.NumTiers // 21: the package's name, one word

var g = "the account matches" // 23: English

func GuidesShown() string { return "matchesPlayed" } // 25: both
`
	tmpl := filepath.Join(dir, "page.html")
	page := "<p>{{.Mismatches}}: the account matches</p>\n<a href=\"/console/guides\">{{.CloudFiles}}</a>\n<p>{{.Matches}}</p>\n"
	for f, b := range map[string]string{goFile: src, tmpl: page} {
		if err := os.WriteFile(f, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		path string
		want map[int]int // line -> findings
	}{
		{goFile, map[int]int{6: 1, 7: 1, 10: 1, 13: 2, 19: 1, 21: 1, 25: 2}},
		{tmpl, map[int]int{2: 1, 3: 1}},
	} {
		found, err := scanFile(c.path, names, pkgs)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int]int{}
		for _, f := range found {
			var line int
			if _, err := fmt.Sscanf(strings.TrimPrefix(f, c.path+":"), "%d", &line); err != nil {
				t.Fatalf("finding %q: %v", f, err)
			}
			got[line]++
		}
		if !maps.Equal(got, c.want) {
			t.Errorf("%s: findings by line %v, want %v:\n%s", filepath.Base(c.path), got, c.want, strings.Join(found, "\n"))
		}
	}
}

// TestAreaWord: identifiers and text are split into words at every
// character that is not a letter and where the case changes, and a word
// names an area when it is the area's name or begins with it (a package's
// name that joins words without a case change).
func TestAreaWord(t *testing.T) {
	names := []string{"cloud", "daily", "guides", "matches", "plinko", "reports"}
	for in, want := range map[string]string{
		"PathGuides":    "guides",
		"CloudOK":       "cloud",
		"plinkoapi":     "plinko",
		"DAILY_LIMIT":   "daily",
		"api/reports/1": "reports",
		"reports2":      "reports",
		"HTTPGuides":    "guides",
		"guidesHTML":    "guides",
		"Mismatches":    "",
		"mismatches":    "",
		"GuideCounts":   "", // the singular: "report" and "match" are the host's own words
		"ReportSummary": "",
		"MatchID":       "",
		"overcloud":     "",
	} {
		if got, _ := areaWord(in, names); got != want {
			t.Errorf("areaWord(%q) = %q, want %q (words %q)", in, got, want, words(in))
		}
	}
	for in, want := range map[string][]string{
		"PathGuides":         {"path", "guides"},
		"CloudOK":            {"cloud", "ok"},
		"HTTPServer":         {"http", "server"},
		"plinko_api2Tiers":   {"plinko", "api", "tiers"},
		`json:"cloud_ok"`:    {"json", "cloud", "ok"},
		"the account's page": {"the", "account", "s", "page"},
	} {
		if got := words(in); !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

// scanFile returns what in the file at path names an area of names or
// imports one of pkgs: a Go file's imports, identifiers and strings
// (checkGoFile), any other file's lines (templates and assets, read
// without the english phrases). Each finding starts with path:line.
func scanFile(path string, names, pkgs []string) ([]string, error) {
	if strings.HasSuffix(path, ".go") {
		return checkGoFile(path, names, pkgs)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var found []string
	for i, line := range strings.Split(string(b), "\n") {
		if a, w := areaWord(prose(line), names); a != "" {
			found = append(found, fmt.Sprintf("%s:%d names the area %q (%q): let the area add it (host/area hooks)", path, i+1, a, w))
		}
	}
	return found, nil
}

// checkGoFile returns path's imports of an area's package, and its
// identifiers and strings that name an area.
func checkGoFile(path string, names, pkgs []string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var found []string
	builtin := filepath.Base(path) == "builtin.go" && filepath.Base(filepath.Dir(path)) == "cli"
	imports := map[*ast.BasicLit]bool{}
	for _, im := range f.Imports {
		imports[im.Path] = true
		p, _ := strconv.Unquote(im.Path.Value)
		if builtin && im.Name != nil && im.Name.Name == "_" {
			continue // the one import line of a built-in area
		}
		if a, _ := areaWord(p, names); areaPackage(p, pkgs) || a != "" {
			found = append(found, fmt.Sprintf("%s imports %s, an area's package: let the area register what the host needs (host/area)", fset.Position(im.Pos()), p))
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if a, _ := areaWord(x.Name, names); a != "" {
				found = append(found, fmt.Sprintf("%s: %s names the area %q", fset.Position(x.Pos()), x.Name, a))
			}
		case *ast.BasicLit:
			if x.Kind == token.STRING && !imports[x] {
				if a, w := areaWord(prose(x.Value), names); a != "" {
					found = append(found, fmt.Sprintf("%s: the string %s names the area %q (%q)", fset.Position(x.Pos()), x.Value, a, w))
				}
			}
		}
		return true
	})
	return found, nil
}

// areaWord returns the first area of names that s names, and the word
// that does. s (an identifier, an import path, a string, a template's
// line) is split into words (words), and a word names an area when it is
// the area's name or begins with it: plinkoapi, dailyarea and cloudcfg
// name theirs (Go's package names join words without a case change), and
// so would "cloudless" (one more phrase for english then). A word that
// only ends with an area's name (mismatches) does not name it, nor does
// the singular (guide, report, match: the last two are the host's own
// words, its load-test report, a route that matches).
func areaWord(s string, names []string) (area, word string) {
	for _, w := range words(s) {
		for _, n := range names {
			if strings.HasPrefix(w, n) {
				return n, w
			}
		}
	}
	return "", ""
}

// words splits s into lower-case words at every character that is not a
// letter (digits, underscores, punctuation, spaces) and where the case
// changes: before an upper-case letter that follows a lower-case one
// (PathGuides: path, guides), and before the last of a run of upper-case
// letters that a lower-case one follows (HTTPServer: http, server).
func words(s string) []string {
	var out []string
	r := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(string(r[start:end])))
		}
		start = -1
	}
	for i, c := range r {
		if !unicode.IsLetter(c) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := r[i-1]
		if unicode.IsUpper(c) && (unicode.IsLower(prev) ||
			(unicode.IsUpper(prev) && i+1 < len(r) && unicode.IsLower(r[i+1]))) {
			flush(i)
			start = i
		}
	}
	flush(len(r))
	return out
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
