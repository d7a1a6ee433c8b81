package modfiles

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWalk(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a.go", "x/b.proto", ".git/c", "x/testdata/d.go", "nested/go.mod", "nested/e.go", "y/.hidden/f"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	if err := Walk(root, func(path string) error {
		rel, _ := filepath.Rel(root, path)
		got = append(got, filepath.ToSlash(rel))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.go", "x/b.proto"}; !slices.Equal(got, want) {
		t.Errorf("walked %v, want %v", got, want)
	}
}
