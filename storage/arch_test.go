package storage

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOnlyActorsWrite enforces the project's first rule mechanically: outside
// package storage itself, only package actors creates or commits batches.
// Handlers, areas, plugins and commands go through an actor.
func TestOnlyActorsWrite(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	writes := regexp.MustCompile(`\.(NewBatch|Commit)\(|storage\.Batch\b`)
	allowed := map[string]bool{"storage": true, "actors": true}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if allowed[strings.Split(filepath.ToSlash(rel), "/")[0]] {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		for i, line := range strings.Split(string(src), "\n") {
			if writes.MatchString(line) {
				t.Errorf("%s:%d writes storage outside the actors: %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("only %d files checked: the walk is not seeing the tree", checked)
	}
}
