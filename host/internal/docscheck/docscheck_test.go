package docscheck

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxLines keeps README.md a page a newcomer reads: longer text
// belongs in a docs/ file that the README links.
const readmeMaxLines = 400

// repoRoot is the module root, three directories above this package.
const repoRoot = "../../.."

// link matches an inline Markdown link or image target: [text](target).
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

func TestReadmeIsShort(t *testing.T) {
	lines := readLines(t, filepath.Join(repoRoot, "README.md"))
	if len(lines) > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move the longer text to a docs/ file and link it", len(lines), readmeMaxLines)
	}
}

// TestReadmeLinksEveryDoc: the README's list of documents names every
// file and directory in docs/, so none is left for a reader to stumble on.
func TestReadmeLinksEveryDoc(t *testing.T) {
	linked := map[string]bool{}
	for _, l := range links(readLines(t, filepath.Join(repoRoot, "README.md"))) {
		target, _, _ := strings.Cut(l.target, "#")
		linked[filepath.Clean(target)] = true
	}
	entries, err := os.ReadDir(filepath.Join(repoRoot, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if name := filepath.Join("docs", e.Name()); !linked[name] {
			t.Errorf("README.md does not link %s: add a line for it to the list of documents", name)
		}
	}
}

// TestRelativeLinksResolve checks every relative link of README.md and
// docs/*.md: the file or directory exists, and a #fragment into a Markdown
// file names one of its headings (as GitHub makes their anchors).
func TestRelativeLinksResolve(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(repoRoot, "README.md"))
	anchorsOf := map[string]map[string]bool{}
	anchors := func(file string) map[string]bool {
		if a, ok := anchorsOf[file]; ok {
			return a
		}
		a := headingAnchors(readLines(t, file))
		anchorsOf[file] = a
		return a
	}
	for _, file := range files {
		name, _ := filepath.Rel(repoRoot, file)
		for _, l := range links(readLines(t, file)) {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			target, fragment, _ := strings.Cut(l.target, "#")
			dest := file
			if target != "" {
				dest = filepath.Join(filepath.Dir(file), target)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link %q: no such file", name, l.line, l.target)
					continue
				}
			}
			if fragment != "" && strings.HasSuffix(dest, ".md") && !anchors(dest)[fragment] {
				t.Errorf("%s:%d: link %q: no heading with that anchor", name, l.line, l.target)
			}
		}
	}
}

func TestHeadingAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"Set-up on a fresh machine":                "set-up-on-a-fresh-machine",
		"`/client_requester.php` f=`get_guide`":    "client_requesterphp-fget_guide",
		"Behind a reverse proxy (TLS)":             "behind-a-reverse-proxy-tls",
		"Walkthrough: from a fresh machine to a …": "walkthrough-from-a-fresh-machine-to-a-",
	} {
		if got := anchor(heading); got != want {
			t.Errorf("anchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestLinksSkipCode(t *testing.T) {
	lines := []string{
		"a [link](a.md) and `[no](b.md)` and [`code` text](c.md#x), `a span",
		"that goes on [no](d.md)` then [yes](e.md)",
		"```",
		"[no](f.md)",
		"```",
	}
	var got []string
	for _, l := range links(lines) {
		got = append(got, l.target)
	}
	if want := []string{"a.md", "c.md#x", "e.md"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("links = %q, want %q", got, want)
	}
}

type mdLink struct {
	target string
	line   int
}

// links lists the link targets outside fenced code blocks and code spans
// (a code span may continue on the next line of its paragraph).
func links(lines []string) []mdLink {
	var out []mdLink
	fenced, inSpan := false, false
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced, inSpan = !fenced, false
			continue
		}
		if fenced {
			continue
		}
		if strings.TrimSpace(line) == "" {
			inSpan = false
			continue
		}
		var text string
		text, inSpan = withoutCodeSpans(line, inSpan)
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			out = append(out, mdLink{target: m[1], line: i + 1})
		}
	}
	return out
}

// withoutCodeSpans replaces the code in a line, whose brackets are no
// links, by "x" (a link's text may hold a code span, which keeps its
// target). inSpan says whether the line starts inside a code span; the
// result says whether it ends inside one.
func withoutCodeSpans(line string, inSpan bool) (string, bool) {
	var b strings.Builder
	for i, part := range strings.Split(line, "`") {
		if i > 0 {
			inSpan = !inSpan
		}
		if inSpan {
			b.WriteString("x")
		} else {
			b.WriteString(part)
		}
	}
	return b.String(), inSpan
}

// headingAnchors returns the anchors GitHub gives the file's headings,
// with "-1", "-2" ... for repeated ones.
func headingAnchors(lines []string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimLeft(line, "#")
		if !strings.HasPrefix(text, " ") {
			continue
		}
		a := anchor(strings.TrimSpace(text))
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// anchor is GitHub's heading anchor: lower case, spaces to hyphens, and
// every character but letters, digits, '-' and '_' dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}
