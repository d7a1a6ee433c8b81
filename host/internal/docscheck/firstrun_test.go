package docscheck

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFirstRunIsAnnounced: the first go run of the README compiles for
// minutes and prints nothing meanwhile, so the paragraph just before the
// command says so; the README's two set-up commands stay as they are; and
// the walkthrough's build, which follows that go run, does not compile
// everything a second time (-trimpath changes every package's build key).
func TestFirstRunIsAnnounced(t *testing.T) {
	lines := readLines(t, filepath.Join(repoRoot, "README.md"))
	at := -1
	for i, l := range lines {
		if l == "    go run ./host serve --demo" {
			at = i
		}
	}
	if at < 0 {
		t.Fatal("README.md lacks the set-up command `go run ./host serve --demo`")
	}
	var before []string
	for i := at - 1; i >= 0 && (strings.TrimSpace(lines[i]) != "" || len(before) == 0); i-- {
		before = append(before, lines[i])
	}
	if p := strings.Join(before, " "); !strings.Contains(p, "prints nothing") || !strings.Contains(p, "minutes") {
		t.Errorf("the paragraph before `go run ./host serve --demo` does not warn that the first run prints nothing for minutes: %q", p)
	}
	if !containsLine(lines, "    go test ./...") {
		t.Error("README.md lacks the set-up command `go test ./...`")
	}
	for _, l := range readLines(t, filepath.Join(repoRoot, "docs", "walkthrough.md")) {
		if strings.HasPrefix(strings.TrimSpace(l), "go build") && strings.Contains(l, "-trimpath") {
			t.Errorf("docs/walkthrough.md builds with -trimpath, a second full compile after the README's go run: %q", l)
		}
	}
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}
