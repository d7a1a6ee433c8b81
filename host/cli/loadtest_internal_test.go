package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/loadtest"
)

// TestTargetListRepeats: --target may be given several times, each one
// kept in order (the load tester spreads requests over them).
func TestTargetListRepeats(t *testing.T) {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var targets targetList
	fs.Var(&targets, "target", "")
	if err := fs.Parse([]string{"--target", "http://a:1", "--target", "http://b:2"}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://a:1", "http://b:2"}; !slices.Equal(targets, want) || targets.String() != "http://a:1 http://b:2" {
		t.Errorf("targets %q, want %q", targets, want)
	}
}

// TestEveryOperationListed: the operations a mix may name, the load
// tester's own and those the built-in areas register from their packages,
// each have a doc for --help and a row in docs/loadtest.md's table.
func TestEveryOperationListed(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "loadtest.md"))
	if err != nil {
		t.Fatal(err)
	}
	var help bytes.Buffer
	loadTestUsage(&help, flag.NewFlagSet("loadtest", flag.ContinueOnError))
	names := loadtest.OperationNames()
	for _, want := range []string{"noop", "store", "drop", "purchase", "vote", "report", "reportinfo"} {
		if !slices.Contains(names, want) {
			t.Errorf("no operation %s in %v", want, names)
		}
	}
	for _, n := range names {
		if loadtest.OperationDoc[n] == "" || !strings.Contains(help.String(), fmt.Sprintf("  %-10s %s\n", n, loadtest.OperationDoc[n])) {
			t.Errorf("--help does not describe %s", n)
		}
		if !strings.Contains(string(doc), "| `"+n+"` |") {
			t.Errorf("docs/loadtest.md has no row for %s", n)
		}
	}
}
