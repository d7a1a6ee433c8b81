package guides

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestImportOwn(t *testing.T) {
	gs := parseAll(t, readFixture(t, "import_own.json"), nil)
	if len(gs) != 3 {
		t.Fatalf("%d guides, want 3", len(gs))
	}
	g := gs[0]
	if g.Gid != 415077 || g.Hero != "Hero_Parallax" || g.Name != "Parallax's complete mid lane guide for patch 4.10" ||
		g.Up != 98 || g.Down != 2 || g.Premium || g.Hidden || !g.Edited.Equal(time.Date(2021, 5, 9, 15, 18, 47, 0, time.UTC)) ||
		!slices.Equal(g.Start, []string{"Item_RunesOfTheBlight", "Item_HealthPotion", ""}) || len(g.Abil) != 5 {
		t.Fatalf("guide 1 = %+v", g)
	}
	if FormatDate(gs[1].Edited) != "12/31/20 09:59:59pm" || !gs[1].Premium {
		t.Fatalf("guide 2 = %+v (date must be converted to UTC)", gs[1])
	}
	if !gs[2].Hidden || gs[2].Up != 1 || gs[2].Down != 3 {
		t.Fatalf("guide 3 = %+v", gs[2])
	}
	// The name is kept whole; the list cuts it.
	if e := string(AppendEntry(nil, ListEntry{Gid: g.Gid, Name: g.Name, Counts: Counts{g.Up, g.Down}})); !strings.Contains(e, `|Parallax\'s complete mid lane guide f|`) {
		t.Fatalf("list entry %q", e)
	}
	again := parseAll(t, readFixture(t, "import_own.json"), nil)
	if !slices.EqualFunc(gs, again, func(a, b Guide) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
		t.Fatal("re-parse differs")
	}
}

// Each archived reply shows again byte for byte: the content keys of a
// get_guide reply built from the imported guide equal the archived ones.
func TestImportArchiveRoundTrip(t *testing.T) {
	data := readFixture(t, "import_archive.json")
	gs := parseAll(t, data, nil)
	var file map[string][]map[string]any
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	byName := map[string]Guide{}
	for _, g := range gs {
		if g.Gid < ArchiveGidBase || g.Gid >= ArchiveGidEnd || g.Gid == ProbeGid || g.ArchiveKey == "" {
			t.Fatalf("guide %q got gid %d", g.Name, g.Gid)
		}
		byName[EscapeName(g.Name)] = g
	}
	n := 0
	for hero, replies := range file {
		for _, want := range replies {
			n++
			g, found := byName[want["guide_name"].(string)]
			if !found || g.Hero != hero {
				t.Fatalf("archived %q not imported", want["guide_name"])
			}
			body, err := wire.Marshal(newGuideReply(GuideView{Guide: g, Counts: Counts{g.Up, g.Down}}, want["hosttime"].(string)))
			if err != nil {
				t.Fatal(err)
			}
			v, _ := wire.Unmarshal(body)
			got := v.(*wire.Array)
			for _, key := range []string{"datetime", "author_name", "hero_cli_name", "guide_name", "hero_name", "rating",
				"thumb", "premium", "i_start", "i_laning", "i_core", "i_luxury", "abilQ", "txt_intro", "txt_guide", "hosttime"} {
				if g, _ := got.Get(key); g != want[key] {
					t.Errorf("%s %q: %s = %q, archived %q", hero, want["guide_name"], key, g, want[key])
				}
			}
		}
	}
	if n != len(gs) {
		t.Fatalf("%d guides for %d archived replies", len(gs), n)
	}
	pyro := byName[`Pyro\'s \'burn\' guide \ 日本語`]
	if pyro.Name != `Pyro's 'burn' guide \ 日本語` || pyro.Up != 33 || pyro.Down != 67 {
		t.Fatalf("unescaped guide %+v", pyro)
	}
	if f := byName["Featured Parallax"]; f.Up != 0 || f.Down != 0 || !f.Premium {
		t.Fatalf("0.00 rating must mean no votes: %+v", f)
	}
	if f := byName["Always loved"]; f.Up != 100 || f.Down != 0 {
		t.Fatalf("1.00 rating: %+v", f)
	}
}

// Re-importing gives every archived guide the gid it has, so the import
// updates instead of duplicating; a gid held by another guide is skipped.
func TestImportArchiveStableGids(t *testing.T) {
	data := readFixture(t, "import_archive.json")
	first := parseAll(t, data, nil)
	stored := map[GuideID]string{}
	for _, g := range first {
		stored[g.Gid] = g.ArchiveKey
	}
	taken := func(gid GuideID) (string, bool) { k, ok := stored[gid]; return k, ok }
	second := parseAll(t, data, taken)
	for i := range first {
		if first[i].Gid != second[i].Gid {
			t.Fatalf("re-import moved %q from %d to %d", first[i].Name, first[i].Gid, second[i].Gid)
		}
	}
	// Another guide already holds the first guide's gid: it moves to the next free one.
	victim := first[0]
	other := map[GuideID]string{victim.Gid: "someone else's guide"}
	third := parseAll(t, data, func(gid GuideID) (string, bool) { k, ok := other[gid]; return k, ok })
	for _, g := range third {
		if g.ArchiveKey == victim.ArchiveKey && (g.Gid == victim.Gid || g.Gid < ArchiveGidBase) {
			t.Fatalf("collision not resolved: gid %d", g.Gid)
		}
	}
	// Wrap-around at the end of the range.
	if nextArchiveGid(ArchiveGidEnd-1) != ArchiveGidBase {
		t.Fatal("probe does not wrap")
	}
}

func TestImportErrors(t *testing.T) {
	own := func(mod func(m map[string]any)) []byte {
		m := map[string]any{"gid": 5, "hero_cli_name": "Hero_A", "hero_name": "A", "guide_name": "N", "author_name": "x",
			"datetime": "2021-05-09T15:18:47Z", "premium": false, "i_start": []string{}, "i_laning": []string{},
			"i_core": []string{}, "i_luxury": []string{}, "abilQ": []string{}, "txt_intro": "", "upvotes": 0, "downvotes": 0}
		mod(m)
		b, _ := json.Marshal([]any{m})
		return b
	}
	for _, tt := range []struct {
		name string
		data []byte
		want string // part of the problem text
	}{
		{"not JSON", []byte("hello"), "not a guide file"},
		{"empty", []byte("  "), "empty"},
		{"intro too long", own(func(m map[string]any) { m["txt_intro"] = strings.Repeat("é", 201) }), "txt_intro has 201 characters"},
		{"probe gid", own(func(m map[string]any) { m["gid"] = 99999 }), "reserved"},
		{"gid zero", own(func(m map[string]any) { m["gid"] = 0 }), "gid must be"},
		{"gid in archive range", own(func(m map[string]any) { m["gid"] = int(ArchiveGidBase) }), "gid must be"},
		{"unknown field", own(func(m map[string]any) { m["upvote"] = 3 }), "unknown field"},
		{"bad hero", own(func(m map[string]any) { m["hero_cli_name"] = "Parallax" }), "hero_cli_name"},
		{"no name", own(func(m map[string]any) { m["guide_name"] = " " }), "guide_name is empty"},
		{"bad date", own(func(m map[string]any) { m["datetime"] = "05/09/21 03:18:47pm" }), "RFC 3339"},
		{"bad item", own(func(m map[string]any) { m["i_core"] = []string{"Item_A|Item_B"} }), "not an identifier"},
		{"too many votes", own(func(m map[string]any) { m["upvotes"] = 2_000_000_000 }), "at most"},
		{"archive bad rating", []byte(`{"Hero_A": [{"success": 1, "datetime": "05/09/21 03:18:47pm", "author_name": "x", "guide_name": "N", "rating": "1.5"}]}`), "rating"},
		{"archive bad date", []byte(`{"Hero_A": [{"success": 1, "datetime": "2021-05-09", "author_name": "x", "guide_name": "N", "rating": "0.5"}]}`), "datetime"},
		{"archive failure reply", []byte(`{"Hero_A": [{"errors": "no_guides_found", "success": 0, "hosttime": "1"}]}`), "success"},
		{"archive hero mismatch", []byte(`{"Hero_A": [{"success": 1, "hero_cli_name": "Hero_B", "datetime": "05/09/21 03:18:47pm", "author_name": "x", "guide_name": "N"}]}`), "differs from its key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gs, refused, err := ParseImport(tt.data, nil)
			if len(gs) != 0 {
				t.Fatalf("ParseImport = %d guides; want none", len(gs))
			}
			if err == nil {
				if len(refused) != 1 {
					t.Fatalf("ParseImport refused %d guides, no file error; want one refusal", len(refused))
				}
				err = refused[0]
			}
			var ie *ImportError
			if !errors.Is(err, ErrImport) || !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q: want an ImportError mentioning %q", err, tt.want)
			}
			if ie.Guide == "" {
				t.Fatal("error names no guide")
			}
		})
	}
	// An upper-case PM is read too.
	gs := parseAll(t, []byte(`{"Hero_A": [{"success": 1, "datetime": "05/09/21 03:18:47PM", "author_name": "x", "guide_name": "N", "rating": "0.50"}]}`), nil)
	if FormatDate(gs[0].Edited) != "05/09/21 03:18:47pm" || gs[0].Up != 50 || gs[0].Down != 50 {
		t.Fatalf("PM archive: %+v", gs)
	}
	// Two problems, two guides: both reported, each naming its guide.
	two := `[{"gid": 1, "hero_cli_name": "Hero_A", "guide_name": "First", "author_name": "x", "datetime": "2021-05-09T15:18:47Z", "txt_intro": "` +
		strings.Repeat("a", 201) + `"}, {"gid": 1, "hero_cli_name": "Hero_A", "guide_name": "Second", "author_name": "x", "datetime": "2021-05-09T15:18:47Z"}]`
	gs, refused, err := ParseImport([]byte(two), nil)
	if err != nil || len(gs) != 0 || len(refused) != 2 || !strings.Contains(refused[0].Error(), `"First"`) ||
		!strings.Contains(refused[1].Error(), `"Second"`) || !strings.Contains(refused[1].Error(), "also used by guide 1") {
		t.Fatalf("ParseImport = %d guides, refused %v, %v", len(gs), refused, err)
	}
}

// parseAll parses an import file that must be valid as a whole.
func parseAll(t *testing.T, data []byte, taken GidTaken) []Guide {
	t.Helper()
	gs, refused, err := ParseImport(data, taken)
	if err != nil || len(refused) > 0 {
		t.Fatalf("ParseImport: %v, refused %v", err, refused)
	}
	return gs
}

func TestDemoGuides(t *testing.T) {
	gs := DemoGuides()
	premium := map[string]int{}
	gids := map[GuideID]bool{}
	for _, g := range gs {
		if ps := validate(&g); len(ps) > 0 {
			t.Errorf("demo guide %d: %v", g.Gid, ps)
		}
		if gids[g.Gid] || g.Gid == ProbeGid || g.Gid > MaxOwnGid {
			t.Errorf("demo gid %d reused or out of range", g.Gid)
		}
		gids[g.Gid] = true
		if g.Premium {
			premium[g.Hero]++
		}
	}
	for _, h := range demoHeroes {
		if premium[h.cli] != 1 {
			t.Errorf("%s has %d premium demo guides, want 1", h.cli, premium[h.cli])
		}
	}
	if len(gs) < 2*len(demoHeroes) {
		t.Fatalf("%d demo guides", len(gs))
	}
}

func TestResolveAuthors(t *testing.T) {
	gs := []Guide{{AuthorName: "demo", Author: 3}, {AuthorName: "Demo", Author: 3}, {AuthorName: "nobody"}}
	logins := map[string]storage.AccountID{"demo": 1}
	ResolveAuthors(gs, func(n string) (storage.AccountID, bool) { id, ok := logins[n]; return id, ok })
	if gs[0].Author != 1 || gs[1].Author != 0 || gs[2].Author != 0 {
		t.Fatalf("authors %d %d %d, want 1 0 0 (exact login match)", gs[0].Author, gs[1].Author, gs[2].Author)
	}
}

func TestMerge(t *testing.T) {
	imported := Guide{Gid: 5, Name: "New name", Up: 10, Premium: true}
	if got := Merge(nil, imported); got.Name != "New name" || got.Hidden {
		t.Fatalf("new guide: %+v", got)
	}
	if got := Merge(&Guide{Gid: 5, Name: "Old", Up: 99, Hidden: true}, imported); !got.Hidden || got.Name != "New name" || got.Up != 10 || !got.Premium {
		t.Fatalf("hidden guide re-imported: %+v", got)
	}
	hide := imported
	hide.Hidden = true
	if got := Merge(&Guide{Gid: 5}, hide); !got.Hidden {
		t.Fatal("a file could not hide a guide")
	}
}

// Captured archives of the original service break description lines with
// CR LF (and tabs): those guides import and are served byte for byte, in
// a PHP string whose length counts bytes. Only a guide holding another
// control character (here an ANSI escape) is refused, named, while the
// file's other guides are still read.
func TestImportArchiveLineBreaks(t *testing.T) {
	gs, refused, err := ParseImport(readFixture(t, "import_archive_crlf.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(refused) != 1 || !strings.Contains(refused[0].Guide, `Hero_Parallax guide 2 ("Coloured guide")`) ||
		!strings.Contains(refused[0].Problem, "txt_intro holds the control character U+001B") {
		t.Fatalf("refused %v, want guide 2 of Hero_Parallax for its escape character", refused)
	}
	byName := map[string]Guide{}
	for _, g := range gs {
		byName[g.Name] = g
	}
	for name, intro := range map[string]string{
		"Parallax, step by step": "Step one: farm.\r\nStep two:\r\n\t- rotate\r\n\t- gank (café break)\r\n",
		"Burn it all":            "Old line break\rthen a tab\there.",
	} {
		g, ok := byName[name]
		if !ok || g.Intro != intro || len(gs) != 2 {
			t.Fatalf("guides %v: %q missing or its intro changed: %q", byName, name, g.Intro)
		}
		body, err := wire.Marshal(newGuideReply(GuideView{Guide: g, Counts: Counts{g.Up, g.Down}}, "1"))
		if err != nil {
			t.Fatal(err)
		}
		// The length is in bytes: é is two, CR LF two.
		if want := fmt.Sprintf(`s:9:"txt_intro";s:%d:"%s";`, len(intro), intro); !strings.Contains(string(body), want) {
			t.Fatalf("get_guide reply %q does not hold %q", body, want)
		}
		v, err := wire.Unmarshal(body)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := v.(*wire.Array).Get("txt_intro"); got != intro {
			t.Fatalf("txt_intro reads back as %q, want %q", got, intro)
		}
	}
}

// Only tab, LF and CR of the control characters are allowed in a text
// field; the refusal names the character.
func TestImportControlCharacters(t *testing.T) {
	for _, tt := range []struct {
		intro string
		bad   string // "" when accepted
	}{
		{"a\r\nb\tc\rd\ne", ""},
		{"nul\x00", "U+0000"},
		{"bell\a", "U+0007"},
		{"esc\x1b[2J", "U+001B"},
		{"del\x7f", "U+007F"},
		{"c1\u0085", "U+0085"},
		{"vt\v", "U+000B"},
		{"ff\f", "U+000C"},
	} {
		g := Guide{Hero: "Hero_A", Name: "N", AuthorName: "x", Edited: time.Unix(1, 0), Intro: tt.intro}
		ps := validate(&g)
		switch {
		case tt.bad == "" && len(ps) > 0:
			t.Errorf("%q refused: %v", tt.intro, ps)
		case tt.bad != "" && (len(ps) != 1 || !strings.Contains(ps[0], "txt_intro holds the control character "+tt.bad)):
			t.Errorf("%q: problems %v, want txt_intro's %s named", tt.intro, ps, tt.bad)
		}
	}
}
