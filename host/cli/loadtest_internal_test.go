package cli

import (
	"flag"
	"io"
	"slices"
	"testing"
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
