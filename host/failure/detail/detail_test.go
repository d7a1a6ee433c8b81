package detail

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var (
	errUsage = errors.New("usage")
	errBadID = errors.New("bad report id")
	errGrant = errors.New("accounts: bad grant")
	errOther = errors.New("other")
)

// textCut is how the CLI took the detail before this package: the error's
// text with the kind's text cut off its front. Kept here to show the case
// it got wrong.
func textCut(err, kind error) string {
	if d, ok := strings.CutPrefix(err.Error(), kind.Error()+": "); ok {
		return d
	}
	return err.Error()
}

func TestErrorTextAndIdentity(t *testing.T) {
	cause := errors.New("balance would go negative")
	err := New(errGrant, "gold %w (it holds %d)", cause, 1)
	// The text is what fmt.Errorf("%w: ...") made, so logs read the same.
	if want := fmt.Errorf("%w: gold %w (it holds %d)", errGrant, cause, 1).Error(); err.Error() != want {
		t.Errorf("text %q, want %q", err, want)
	}
	if !errors.Is(err, errGrant) || !errors.Is(err, cause) {
		t.Errorf("errors.Is misses the kind or the cause: %v", err)
	}
	if errors.Is(err, errOther) {
		t.Errorf("errors.Is matches another kind")
	}
	var pe *fs.PathError
	if errors.As(New(errOther, "open: %w", &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}), &pe) == false || pe.Path != "/x" {
		t.Errorf("errors.As does not reach a wrapped cause")
	}
	if e := New(errOther, "plain %d", 3).(*Error); e.Cause != nil || e.Detail != "plain 3" {
		t.Errorf("no %%w: Cause %v, Detail %q; want nil, %q", e.Cause, e.Detail, "plain 3")
	}
}

func TestOf(t *testing.T) {
	badID := New(errBadID, "%q is not REPORTER-NUMBER", "x")
	usage := New(errUsage, "%w", badID) // a usage error wrapping a bad ID
	tests := []struct {
		name string
		err  error
		kind error
		want string
		ok   bool
	}{
		{"direct", badID, errBadID, `"x" is not REPORTER-NUMBER`, true},
		{"outer of two kinds", usage, errUsage, `bad report id: "x" is not REPORTER-NUMBER`, true},
		{"inner of two kinds", usage, errBadID, `"x" is not REPORTER-NUMBER`, true},
		{"wrapped with a prefix", fmt.Errorf("import: %w", badID), errBadID, `"x" is not REPORTER-NUMBER`, true},
		{"in a join, after another kind", errors.Join(New(errOther, "first"), New(errGrant, "second")), errGrant, "second", true},
		{"several of the kind: the first", errors.Join(New(errGrant, "first"), New(errGrant, "second")), errGrant, "first", true},
		{"kind wrapping the kind", New(fmt.Errorf("%w: by server", errOther), "held"), errOther, "held", true},
		{"kind without detail", fmt.Errorf("x: %w", errGrant), errGrant, "", false},
		{"other kind only", badID, errGrant, "", false},
		{"nil", nil, errGrant, "", false},
	}
	for _, tc := range tests {
		got, ok := Of(tc.err, tc.kind)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Of = %q, %t; want %q, %t", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestWrappedKeepsDetail is the case cutting the text got wrong: an error
// wrapped with one more prefix lost its cut, and the operator read the
// whole chain, kind and package names included.
func TestWrappedKeepsDetail(t *testing.T) {
	err := fmt.Errorf("import: %w", New(errGrant, "upgrade %q is not <type>.<name>", "nodot"))
	want := `upgrade "nodot" is not <type>.<name>`
	if got, _ := Of(err, errGrant); got != want {
		t.Errorf("Of = %q, want %q", got, want)
	}
	if got := textCut(err, errGrant); got == want {
		t.Errorf("cutting the text gave %q: the case this package exists for no longer shows", got)
	}
}

// TestLeaf keeps the package a leaf: storage, below every other package of
// the module, imports it.
func TestLeaf(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no files: %v", err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s: the package imports the standard library only", f, path)
			}
		}
	}
}
