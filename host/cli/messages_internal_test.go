package cli

import (
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/internal/modfiles"
	"github.com/honmaster/masterserver/storage"
)

// A storage failure is worded for both backends: an uncertain commit is
// usually a lost connection on PostgreSQL, not a disk failure, and a lost
// database lock says what to do.
func TestStorageFailuresWordedForBothBackends(t *testing.T) {
	for _, c := range []struct {
		err  error
		want []string
	}{
		{fmt.Errorf("storage: commit: %w", storage.ErrCommitUncertain), []string{"disk", "connection to PostgreSQL", "may or may not"}},
		{fmt.Errorf("storage: commit: %w", storage.ErrPostgresLockLost), []string{"lost its lock", "nothing changed", "restart"}},
	} {
		msg := explain(c.err)
		assertNoPrefix(t, c.err.Error(), msg)
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%v is explained as %q; want it to say %q", c.err, msg, w)
			}
		}
	}
}

// TestInternalPrefixKnowsEveryPackage: every package of this module is
// one internalPrefix takes out of operator messages, so that a package
// added later (a new area) does not leak "name: " into them. The list is
// found by walking the module, not kept by hand.
func TestInternalPrefixKnowsEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..")
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
		if got := stripInternal(name + ": boom"); got != "boom" {
			t.Errorf("package %s (%s): %q is left as %q; add it to internalPrefix", name, dir, name+": boom", got)
		}
	}
}
