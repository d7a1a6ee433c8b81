package guides

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestFormatDate(t *testing.T) {
	for _, tt := range []struct {
		t    time.Time
		want string
	}{
		{time.Date(2021, 5, 9, 15, 18, 47, 0, time.UTC), "05/09/21 03:18:47pm"},
		{time.Date(2020, 1, 1, 0, 5, 0, 0, time.UTC), "01/01/20 12:05:00am"},
		{time.Date(2019, 12, 31, 12, 0, 0, 0, time.UTC), "12/31/19 12:00:00pm"},
		{time.Date(2021, 5, 9, 17, 18, 47, 0, time.FixedZone("CEST", 2*3600)), "05/09/21 03:18:47pm"}, // written in UTC
	} {
		if got := FormatDate(tt.t); got != tt.want {
			t.Errorf("FormatDate(%v) = %q, want %q", tt.t, got, tt.want)
		}
	}
}

func TestListName(t *testing.T) {
	long := strings.Repeat("a", 35)
	for _, tt := range []struct {
		name, in, want string
	}{
		{"short", "Carry", "Carry"},
		{"exactly 36", strings.Repeat("x", 36), strings.Repeat("x", 36)},
		{"cut to 36", strings.Repeat("x", 40), strings.Repeat("x", 36)},
		{"apostrophe escaped", "Pyro's guide", `Pyro\'s guide`},
		{"apostrophe at 36 kept whole", long + "'s tail", long + `\'`},
		{"apostrophe at 37 dropped", long + "b's", long + "b"},
		{"cut by characters", strings.Repeat("é", 40), strings.Repeat("é", 36)},
		{"emoji at the cut", long + "🎮🎮", long + "🎮"},
		{"backslash kept", `a \ b`, `a \ b`},
		{"separators replaced", "a|b`c", "a/b\\'c"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := ListName(tt.in)
			if got != tt.want {
				t.Fatalf("ListName(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if !utf8.ValidString(got) || utf8.RuneCountInString(UnescapeName(got)) > ListNameRunes {
				t.Fatalf("ListName(%q) = %q: invalid or longer than %d", tt.in, got, ListNameRunes)
			}
		})
	}
}

func TestEscapeRoundTrip(t *testing.T) {
	for _, s := range []string{"", "'", `\'`, `\\'`, `it's`, `''`, `a\`, `\`} {
		if got := UnescapeName(EscapeName(s)); got != s {
			t.Errorf("UnescapeName(EscapeName(%q)) = %q", s, got)
		}
	}
}

func TestFormatRating(t *testing.T) {
	for _, tt := range []struct {
		up, down uint32
		want     string
	}{
		{0, 0, "0.00"}, {0, 5, "0.00"}, {1, 0, "1.00"}, {98, 2, "0.98"}, {1, 2, "0.33"}, {2, 1, "0.67"},
		{1, 7, "0.13"},   // 0.125 rounds half up
		{199, 1, "1.00"}, // 0.995 rounds to 1.00
		{1, 199, "0.01"}, // 0.005 rounds half up
		{1, 999, "0.00"},
		{4_000_000_000, 4_000_000_000, "0.50"}, // no overflow
	} {
		if got := FormatRating(Counts{tt.up, tt.down}); got != tt.want {
			t.Errorf("FormatRating(%d, %d) = %q, want %q", tt.up, tt.down, got, tt.want)
		}
	}
	// Every archived rating shows again from ArchiveVotes votes.
	for h := range 101 {
		want := fmt.Sprintf("%d.%02d", h/100, h%100)
		if got := FormatRating(Counts{uint32(h), uint32(ArchiveVotes - h)}); got != want {
			t.Errorf("FormatRating(%d of %d) = %q, want %q", h, ArchiveVotes, got, want)
		}
	}
}

func TestFormatList(t *testing.T) {
	edited := time.Date(2021, 5, 9, 15, 18, 47, 0, time.UTC)
	var entries []ListEntry
	for i := range 25 {
		entries = append(entries, ListEntry{Gid: GuideID(100 + i), Edited: edited, AuthorName: "O'Neil", Name: fmt.Sprintf("G%d", i),
			Counts: Counts{Up: 1, Down: 1}, Default: i == 0, Favorite: i == 1, Yours: i == 2, Premium: i == 3})
	}
	got := FormatList(entries)
	parts := strings.Split(got, "`")
	if len(parts) != MaxListEntries {
		t.Fatalf("%d entries, want %d", len(parts), MaxListEntries)
	}
	want := []string{
		`100|05/09/21 03:18:47pm|O\'Neil|G0|is_def|not_fav|0.50|not_yours|0`,
		`101|05/09/21 03:18:47pm|O\'Neil|G1|not_def|is_fav|0.50|not_yours|0`,
		`102|05/09/21 03:18:47pm|O\'Neil|G2|not_def|not_fav|0.50|is_yours|0`,
		`103|05/09/21 03:18:47pm|O\'Neil|G3|not_def|not_fav|0.50|not_yours|1`,
	}
	for i, w := range want {
		if parts[i] != w {
			t.Errorf("entry %d = %q, want %q", i, parts[i], w)
		}
	}
	for i, p := range parts {
		if n := len(strings.Split(p, "|")); n != 9 {
			t.Errorf("entry %d has %d fields", i, n)
		}
	}
	if FormatList(nil) != "" {
		t.Error("empty list is not empty text")
	}
}

// A list entry written with its guide's head made once by the catalog is
// byte for byte the entry written field by field.
func TestCatalogHeadMatchesEntry(t *testing.T) {
	cat := &catalog{}
	for i, g := range []*Guide{
		{Gid: 1, Name: "Plain", AuthorName: "someone", Edited: time.Date(2021, 5, 9, 15, 18, 47, 0, time.UTC)},
		{Gid: 415077, Name: "It's a pipe | and a `tick` in a name longer than thirty-six", AuthorName: "O'Brien|x"},
		{Gid: 3, Name: strings.Repeat("é", 40) + "'", AuthorName: "bad\xffutf8", Edited: time.Date(2020, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 3600))},
	} {
		e := ListEntry{Gid: g.Gid, Edited: g.Edited, AuthorName: g.AuthorName, Name: g.Name, Counts: Counts{Up: 3, Down: 1},
			Premium: i == 1, Default: i == 0, Favorite: i == 2, Yours: i == 1}
		want := string(AppendEntry(nil, e))
		e.head = cat.head(g)
		if got := string(AppendEntry(nil, e)); got != want {
			t.Errorf("gid %d: with the catalog's head %q, want %q", g.Gid, got, want)
		}
		if again := cat.head(g); again != e.head {
			t.Errorf("gid %d: head changed: %q then %q", g.Gid, e.head, again)
		}
	}
}
