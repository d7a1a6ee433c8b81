package reports

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestUndoMasterQuirk(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"abc def'", "abc def"}, // recorded: report_description=abc+def%27
		{`it\'s bad'`, "it's bad"},
		{`rock\''`, "rock'"}, // text ending in an apostrophe
		{`\'\'''`, "'''"},
		{"'", ""},
		{"", ""},
		{"no quirk", "no quirk"}, // another client: nothing appended
		{`a\b'`, `a\b`},          // other backslashes stay
	}
	for _, tc := range tests {
		if got := UndoMasterQuirk(tc.raw); got != tc.want {
			t.Errorf("UndoMasterQuirk(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

func TestCleanText(t *testing.T) {
	tests := []struct {
		name, in, want string
		max            int
		truncated      bool
	}{
		{"plain", "he fed 20 times", "he fed 20 times", 210, false},
		{"trim and breaks", "  line1\r\nline2\tx  ", "line1  line2 x", 210, false},
		{"escape sequences dropped", "red\x1b[31m\x07bell\x00", "red[31mbell", 210, false},
		{"bidi override dropped", "abc\u202edef", "abcdef", 210, false},
		{"invalid utf8", "a\xffb", "a\uFFFDb", 210, false},
		{"cut by runes", "日本語テキスト", "日本語", 3, true},
		{"exactly max", "abc", "abc", 3, false},
		{"cut trims trailing space", "ab cd", "ab", 3, true},
		{"unlimited", strings.Repeat("x", 500), strings.Repeat("x", 500), -1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, tr := CleanText(tc.in, tc.max)
			if got != tc.want || tr != tc.truncated {
				t.Errorf("CleanText(%q, %d) = %q, %v; want %q, %v", tc.in, tc.max, got, tr, tc.want, tc.truncated)
			}
		})
	}
	// 210 emoji (4 bytes each) of 300 keep 210 whole characters.
	got, tr := CleanText(strings.Repeat("🎮", 300), 210)
	if !tr || utf8.RuneCountInString(got) != 210 || !utf8.ValidString(got) {
		t.Errorf("emoji cut: %d runes, valid %v, truncated %v", utf8.RuneCountInString(got), utf8.ValidString(got), tr)
	}
}
