package storage

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoAreaNames keeps storage and actors free of area knowledge: no
// exported name of theirs names an area's records. Areas declare their
// records as keyspaces in their own packages.
//
// The one exception is the cloud enrollment switches on the account
// (Account.Cloud, CloudFlags): the session record the login service
// serves carries them (use_cloud, cloud_storage_info) for every login, so
// they are part of the account's profile like its balances.
func TestNoAreaNames(t *testing.T) {
	area := regexp.MustCompile(`(?i)cloud|plinko|guide|report|catalog|chest|exchange|console`)
	allowed := map[string]bool{"CloudFlags": true, "Account.Cloud": true}
	checked := 0
	for _, dir := range []string{".", "../actors"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			check := func(name string) {
				if area.MatchString(name) && !allowed[name] {
					t.Errorf("%s: %s names an area's records: declare them in the area", path, name)
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch d := n.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() {
						check(d.Name.Name)
					}
				case *ast.TypeSpec:
					if d.Name.IsExported() {
						check(d.Name.Name)
					}
					if st, ok := d.Type.(*ast.StructType); ok && !allowed[d.Name.Name] {
						for _, fl := range st.Fields.List {
							for _, n := range fl.Names {
								if n.IsExported() {
									check(d.Name.Name + "." + n.Name)
								}
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range d.Names {
						if n.IsExported() {
							check(n.Name)
						}
					}
				}
				return true
			})
		}
	}
	if checked < 10 {
		t.Fatalf("only %d files checked", checked)
	}
}
