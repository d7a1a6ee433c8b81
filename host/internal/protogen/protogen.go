package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/honmaster/masterserver/host/internal/modfiles"
)

// tool is one of the generators, at the version the committed code was
// generated with (the version is printed in each generated file's header,
// so another version changes every file).
type tool struct {
	name, version, install string
	goPkg                  string // what go install installs ("" : a Debian package, aptPkg)
	aptPkg                 string
}

var pins = []tool{
	{name: "protoc", version: "3.21.12", install: "go run ./host/internal/protogen -install, or apt-get install protobuf-compiler (Debian 12 ships 3.21.12)",
		aptPkg: "protobuf-compiler"},
	{name: "protoc-gen-go", version: "1.36.12", install: "go run ./host/internal/protogen -install",
		goPkg: "google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12"},
	{name: "protoc-gen-go-grpc", version: "1.6.2", install: "go run ./host/internal/protogen -install",
		goPkg: "google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2"},
}

// errTools marks a generator that is missing or at another version than
// its pin: the committed code cannot be reproduced here.
var errTools = errors.New("protoc tools")

// toolPath is PATH followed by the bin directory of each GOPATH entry,
// where go install puts protoc-gen-go and protoc-gen-go-grpc.
func toolPath() string {
	dirs := []string{os.Getenv("PATH")}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, p := range filepath.SplitList(strings.TrimSpace(string(out))) {
			dirs = append(dirs, filepath.Join(p, "bin"))
		}
	}
	return strings.Join(dirs, string(os.PathListSeparator))
}

// checkTools finds each pinned tool on PATH and checks its version (the
// last word of its --version output).
func checkTools() error {
	var problems []string
	for _, t := range pins {
		if p := t.check(); p != "" {
			problems = append(problems, p)
		}
	}
	if problems != nil {
		return fmt.Errorf("%w: %s", errTools, strings.Join(problems, "; "))
	}
	return nil
}

// check finds the tool on PATH and checks its version (the last word of
// its --version output): "" when it is the pinned one, else the problem.
func (t tool) check() string {
	path, err := exec.LookPath(t.name)
	if err != nil {
		return fmt.Sprintf("%s is not installed (%s)", t.name, t.install)
	}
	return t.checkAt(path)
}

// checkAt checks the version of the tool at path, as check does.
func (t tool) checkAt(path string) string {
	if _, err := os.Stat(path); err != nil {
		return fmt.Sprintf("%s is not installed (%s)", t.name, t.install)
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return fmt.Sprintf("%s --version: %v", t.name, err)
	}
	fields := strings.Fields(string(out))
	if len(fields) == 0 || strings.TrimPrefix(fields[len(fields)-1], "v") != t.version {
		return fmt.Sprintf("%s is %q, the committed code is from %s (%s)", t.name, strings.TrimSpace(string(out)), t.version, t.install)
	}
	return ""
}

// moduleRoot is the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the module (go env GOMOD is empty)")
	}
	return filepath.Dir(gomod), nil
}

// modulePath reads the module line of root's go.mod.
func modulePath(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", filepath.Join(root, "go.mod"))
}

// group is the .proto files of one directory with one go_package: one
// protoc run.
type group struct {
	Dir      string   // the files' directory, relative to the root (slash-separated)
	Out      string   // where the Go code goes: the go_package's directory, relative to the root
	Files    []string // the .proto files' names, sorted
	Services bool     // some file declares a service: gRPC code too
}

var (
	goPackageOption = regexp.MustCompile(`(?m)^\s*option\s+go_package\s*=\s*"([^";]+)(?:;[^"]*)?"\s*;`)
	serviceDecl     = regexp.MustCompile(`(?m)^\s*service\s+\w+\s*\{`)
)

// findGroups walks root for .proto files, leaving out hidden directories,
// testdata and nested modules, and groups them. Every file must name a
// go_package inside root's module.
func findGroups(root string) ([]group, error) {
	module, err := modulePath(root)
	if err != nil {
		return nil, err
	}
	byKey := map[[2]string]*group{}
	err = modfiles.Walk(root, func(path string) error {
		if filepath.Ext(path) != ".proto" {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		m := goPackageOption.FindSubmatch(src)
		if m == nil {
			return fmt.Errorf("%s: no option go_package", rel)
		}
		out, ok := strings.CutPrefix(string(m[1]), module+"/")
		if !ok {
			return fmt.Errorf("%s: go_package %q is outside module %s", rel, m[1], module)
		}
		dir, name := filepath.ToSlash(filepath.Dir(rel)), filepath.Base(rel)
		key := [2]string{dir, out}
		g := byKey[key]
		if g == nil {
			g = &group{Dir: dir, Out: out}
			byKey[key] = g
		}
		g.Files = append(g.Files, name)
		g.Services = g.Services || serviceDecl.Match(src)
		return nil
	})
	if err != nil {
		return nil, err
	}
	groups := make([]group, 0, len(byKey))
	for _, g := range byKey {
		slices.Sort(g.Files)
		groups = append(groups, *g)
	}
	slices.SortFunc(groups, func(a, b group) int {
		return strings.Compare(a.Dir+"\x00"+a.Out, b.Dir+"\x00"+b.Out)
	})
	return groups, nil
}

// generate runs protoc on g's files (in their directory, so each file's
// name inside the generated code is its base name) into outRoot/g.Out.
func (g group) generate(root, outRoot string) error {
	out, err := filepath.Abs(filepath.Join(outRoot, filepath.FromSlash(g.Out)))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	args := []string{"--proto_path=.", "--go_out=" + out, "--go_opt=paths=source_relative"}
	if g.Services {
		args = append(args, "--go-grpc_out="+out, "--go-grpc_opt=paths=source_relative")
	}
	cmd := exec.Command("protoc", append(args, g.Files...)...)
	cmd.Dir = filepath.Join(root, filepath.FromSlash(g.Dir))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("protoc in %s: %v\n%s", g.Dir, err, stderr.Bytes())
	}
	return nil
}
