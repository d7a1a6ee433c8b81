package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/loadtest"
	"github.com/honmaster/masterserver/host/operator"
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
// each have a doc for --help; the load tester's own have a row in
// docs/loadtest.md's table, an area's are in the endpoints.md the area
// carries (clitest.CheckAreaReference, run by the area's own test).
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
		if loadtest.OperationArea(n) == "" && !strings.Contains(string(doc), "| `"+n+"` |") {
			t.Errorf("docs/loadtest.md has no row for %s", n)
		}
	}
}

// TestRequestBudget: --duration alone runs for the duration (no request
// limit); --requests, or neither, keeps the limit.
func TestRequestBudget(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, 20000},
		{[]string{"--duration", "30s"}, math.MaxInt32},
		{[]string{"--duration", "30s", "--requests", "500"}, 500},
		{[]string{"--requests", "500"}, 500},
	} {
		fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
		requests := fs.Int("requests", 20000, "")
		fs.Duration("duration", 10*time.Second, "")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if got := requestBudget(fs, *requests); got != tc.want {
			t.Errorf("%v: %d requests, want %d", tc.args, got, tc.want)
		}
	}
}

// TestDefaultTokenFile: without --data, the token of ./data, or of the
// demo's directory when only it has one.
func TestDefaultTokenFile(t *testing.T) {
	t.Chdir(t.TempDir())
	plain := filepath.Join("data", operator.TokenFile)
	demo := filepath.Join(DemoDataDir, operator.TokenFile)
	if got := defaultTokenFile(""); got != plain {
		t.Errorf("no token anywhere: %s, want %s", got, plain)
	}
	if err := os.MkdirAll(DemoDataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(demo, []byte("t"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := defaultTokenFile(""); got != demo {
		t.Errorf("only the demo's token: %s, want %s", got, demo)
	}
	if err := os.MkdirAll("data", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, []byte("t"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := defaultTokenFile(""); got != plain {
		t.Errorf("both: %s, want %s", got, plain)
	}
	if got := defaultTokenFile("/srv/hon"); got != filepath.Join("/srv/hon", operator.TokenFile) {
		t.Errorf("--data /srv/hon: %s", got)
	}
}
