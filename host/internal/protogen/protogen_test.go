package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/internal/modfiles"
)

// TestGeneratedCodeIsFresh regenerates every .proto of the repository into
// a temporary directory and compares the result with the committed files.
// It skips where the pinned protoc tools are not installed, except under
// CI=true (.ci/run installs them); TestEveryGeneratedFileHasASource runs
// everywhere.
func TestGeneratedCodeIsFresh(t *testing.T) {
	t.Setenv("PATH", toolPath())
	if err := checkTools(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (.ci/run installs them)", err)
		}
		t.Skipf("skipping: %v", err)
	}
	root := repoRoot(t)
	out := t.TempDir()
	if err := generateAll(root, out); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, path)
		want, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		got, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Errorf("%s is not committed: run go run ./host/internal/protogen", filepath.ToSlash(rel))
			return nil
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go run ./host/internal/protogen", filepath.ToSlash(rel))
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("nothing was generated")
	}
}

// generatedSource is the "// source: x.proto" line protoc-gen-go and
// protoc-gen-go-grpc write into each file's header.
var generatedSource = regexp.MustCompile(`(?m)^// source: (\S+\.proto)$`)

// TestEveryGeneratedFileHasASource checks, without protoc, that the files
// findGroups finds account for every committed .pb.go: each lies in the
// output directory of a group that holds its source. A .pb.go whose .proto
// moved or was deleted, or that findGroups would miss, fails here.
func TestEveryGeneratedFileHasASource(t *testing.T) {
	root := repoRoot(t)
	groups, err := findGroups(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) == 0 {
		t.Fatal("no .proto files found")
	}
	sources := map[string]bool{} // "<out dir>/<file>.proto"
	for _, g := range groups {
		for _, f := range g.Files {
			sources[g.Out+"/"+f] = true
		}
	}
	n := 0
	err = modfiles.Walk(root, func(path string) error {
		if !strings.HasSuffix(path, ".pb.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		m := generatedSource.FindSubmatch(src)
		if m == nil {
			t.Errorf("%s names no source .proto", rel)
			return nil
		}
		if key := filepath.ToSlash(filepath.Dir(rel)) + "/" + string(m[1]); !sources[key] {
			t.Errorf("%s: no .proto %s has go_package %s", rel, m[1], filepath.ToSlash(filepath.Dir(rel)))
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no .pb.go files found")
	}
}

func TestFindGroups(t *testing.T) {
	root := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	write("a/proto/one.proto", "syntax = \"proto3\";\noption go_package = \"example.com/m/a/internal/apb\";\nmessage One {}\n")
	write("a/proto/two.proto", "syntax = \"proto3\";\noption go_package = \"example.com/m/a/internal/apb;apb\";\nservice Two {\n  rpc X(One) returns (One);\n}\n")
	write("b/proto/three.proto", "syntax = \"proto3\";\n  option go_package=\"example.com/m/b/pb\" ;\n// service Commented {}\nmessage Three {}\n")
	write("a/testdata/skipped.proto", "no go_package: never read\n")
	write(".hidden/skipped.proto", "no go_package: never read\n")
	write("nested/go.mod", "module example.com/other\n")
	write("nested/skipped.proto", "no go_package: never read\n")

	got, err := findGroups(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []group{
		{Dir: "a/proto", Out: "a/internal/apb", Files: []string{"one.proto", "two.proto"}, Services: true},
		{Dir: "b/proto", Out: "b/pb", Files: []string{"three.proto"}},
	}
	if !slices.EqualFunc(got, want, func(a, b group) bool {
		return a.Dir == b.Dir && a.Out == b.Out && a.Services == b.Services && slices.Equal(a.Files, b.Files)
	}) {
		t.Errorf("findGroups:\n got %+v\nwant %+v", got, want)
	}

	for _, tc := range []struct{ name, content, wantErr string }{
		{"no go_package", "syntax = \"proto3\";\n", "c/x.proto: no option go_package"},
		{"outside the module", "option go_package = \"example.com/other/pb\";\n", `c/x.proto: go_package "example.com/other/pb" is outside module example.com/m`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write("c/x.proto", tc.content)
			_, err := findGroups(root)
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("findGroups error = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestCheckToolsRefusesOtherVersions: a generator at another version than
// its pin would rewrite every header, so generation refuses to run.
func TestCheckToolsRefusesOtherVersions(t *testing.T) {
	bin := t.TempDir()
	for _, tool := range pins {
		version := tool.version
		if tool.name == "protoc-gen-go" {
			version = "0.0.1"
		}
		script := "#!/bin/sh\necho '" + tool.name + " v" + version + "'\n"
		if err := os.WriteFile(filepath.Join(bin, tool.name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	err := checkTools()
	if !errors.Is(err, errTools) || !strings.Contains(err.Error(), `protoc-gen-go is "protoc-gen-go v0.0.1", the committed code is from 1.36.12`) {
		t.Fatalf("checkTools = %v, want protoc-gen-go refused", err)
	}
	if strings.Contains(err.Error(), "protoc is") || strings.Contains(err.Error(), "protoc-gen-go-grpc is") {
		t.Errorf("checkTools refused a tool at its pinned version: %v", err)
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}
