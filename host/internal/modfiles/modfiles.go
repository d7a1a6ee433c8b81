// Package modfiles walks the files of this module's source tree, as the
// checks that derive their lists from the tree (protogen's .proto files,
// the package names operator messages hide) need: hidden directories,
// testdata and nested modules are left out.
package modfiles

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Walk calls fn with every regular file under root (root's own module),
// in lexical order, until fn errs.
func Walk(root string, fn func(path string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root {
				return nil
			}
			if name := d.Name(); strings.HasPrefix(name, ".") || name == "testdata" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return fn(path)
	})
}
