package guides

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/honmaster/masterserver/wire"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the reply types")

var sampleGuide = Guide{
	Gid: 415077, Hero: "Hero_Parallax", HeroName: "Parallax", Name: `Parallax's "mid" guide`, AuthorName: "someone",
	Edited: time.Date(2021, 5, 9, 15, 18, 47, 0, time.UTC), Premium: true,
	Start:  []string{"Item_RunesOfTheBlight", "Item_HealthPotion", ""},
	Laning: []string{"Item_Marchers"}, Core: []string{"Item_Steamboots", "Item_PortalKey"}, Luxury: []string{""},
	Abil:  []string{"Ability_Parallax1", "Ability_Parallax2", "Ability_AttributeBoost"},
	Intro: "Short intro. Ünïcode too.",
}

var (
	listKeys    = []string{"errors", "success", "guide_list", "hosttime", "vested_threshold", "0"}
	guideKeys22 = []string{"errors", "success", "datetime", "author_name", "hero_cli_name", "guide_name", "hero_name",
		"default", "favorite", "rating", "thumb", "premium", "i_start", "i_laning", "i_core", "i_luxury", "abilQ",
		"txt_intro", "txt_guide", "hosttime", "vested_threshold", "0"}
	guideKeys23 = slices.Insert(slices.Clone(guideKeys22), 11, "vote")
	setKeys     = []string{"errors", "success", "set", "hosttime", "vested_threshold", "0"}
	voteKeys    = []string{"errors", "success", "vote", "hosttime", "vested_threshold", "0"}
	failKeys    = []string{"errors", "success", "hosttime", "vested_threshold", "0"}
)

// goldenCases are every reply shape of the area, pinned in
// testdata/<name>.golden with the keys PHP must see, in order.
func goldenCases() []struct {
	name string
	v    any
	keys []string
} {
	const ht = "1620573527"
	view := func(v Vote, def, fav bool) GuideView {
		return GuideView{Guide: sampleGuide, Counts: Counts{Up: 98, Down: 2}, Flags: Flags{Default: def, Favorite: fav, Vote: v}}
	}
	entries := []ListEntry{
		{Gid: 12, Edited: sampleGuide.Edited, AuthorName: "SouL", Name: `Pyro's "burst" guide \ v2 with a very long tail`,
			Counts: Counts{Up: 49, Down: 1}, Default: true, Yours: true},
		{Gid: 13, Edited: time.Date(2020, 12, 31, 11, 59, 59, 0, time.UTC), AuthorName: "Ann", Name: "Carry",
			Counts: Counts{Up: 3}, Premium: true, Favorite: true},
		{Gid: 14, Edited: time.Date(2020, 1, 1, 0, 5, 0, 0, time.UTC), AuthorName: "Zoë", Name: "日本語のガイド",
			Counts: Counts{}},
	}
	return []struct {
		name string
		v    any
		keys []string
	}{
		{"list", listReply{status: ok, GuideList: FormatList(entries), HostTime: ht}, listKeys},
		{"list_empty", listReply{status: ok, HostTime: ht}, listKeys},
		{"guide_not_voted", newGuideReply(view(VoteNone, false, false), ht), guideKeys22},
		{"guide_voted_up", newGuideReply(view(VoteUp, true, true), ht), guideKeys23},
		{"guide_voted_down", newGuideReply(view(VoteDown, false, true), ht), guideKeys23},
		{"default_set", setReply{status: ok, Set: 1, HostTime: ht}, setKeys},
		{"default_remove", setReply{status: ok, Set: 0, HostTime: ht}, setKeys},
		{"vote_up", voteReply{status: ok, Vote: 1, HostTime: ht}, voteKeys},
		{"vote_down", voteReply{status: ok, Vote: 0, HostTime: ht}, voteKeys},
		{"no_guides_found", failReply{status: status{Errors: ReasonNotFound.Message()}, HostTime: ht}, failKeys},
		{"invalid_cookie", failReply{status: status{Errors: ReasonInvalidCookie.Message()}, HostTime: ht}, failKeys},
		{"wrong_account", failReply{status: status{Errors: ReasonWrongAccount.Message()}, HostTime: ht}, failKeys},
		{"hosttime_verbatim", voteReply{status: ok, Vote: 1, HostTime: " 0012.50\x00é"}, voteKeys},
	}
}

func goldenPath(name string) string { return filepath.Join("testdata", name+".golden") }

func TestGolden(t *testing.T) {
	names := map[string]bool{}
	for _, tc := range goldenCases() {
		names[tc.name+".golden"] = true
		t.Run(tc.name, func(t *testing.T) {
			got, err := wire.Marshal(tc.v)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			path := goldenPath(tc.name)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./host/guides -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("reply differs from %s\n got %s\nwant %s", path, got, want)
			}
			v, err := wire.Unmarshal(want)
			if err != nil {
				t.Fatalf("Unmarshal(%s): %v", path, err)
			}
			arr, isArr := v.(*wire.Array)
			if !isArr || arr.Len() != len(tc.keys) {
				t.Fatalf("%s: %d entries, want %d", path, arr.Len(), len(tc.keys))
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.golden"))
	for _, f := range files {
		if !names[filepath.Base(f)] {
			t.Errorf("%s has no case in goldenCases; delete it or add the case", f)
		}
	}
}

// TestGoldenPHP checks every fixture with real PHP, as wire's golden test
// does: unserialize must accept it, serialize must give it back byte for
// byte, and the keys must be the reply's, in order.
func TestGoldenPHP(t *testing.T) {
	php, err := exec.LookPath("php")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("php not installed, but CI=true: CI must install php-cli to check the golden fixtures")
		}
		t.Skip("php not installed: golden fixtures not checked by PHP")
	}
	const script = `
$x = file_get_contents($argv[1]);
$v = unserialize($x, ["allowed_classes" => false]);
if (!is_array($v)) { fwrite(STDERR, "not an array\n"); exit(2); }
if (serialize($v) !== $x) { fwrite(STDERR, "serialize(unserialize(x)) differs\n"); exit(3); }
echo json_encode(array_map("strval", array_keys($v)));
`
	args := []string{"-n", "-d", "serialize_precision=-1", "-d", "display_errors=stderr", "-d", "error_reporting=-1", "-r", script}
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := goldenPath(tc.name)
			out, err := exec.Command(php, append(args, path)...).Output()
			if err != nil {
				var stderr []byte
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				t.Fatalf("php rejects %s: %v\n%s", path, err, stderr)
			}
			var keys []string
			if err := json.Unmarshal(out, &keys); err != nil {
				t.Fatalf("php printed %q: %v", out, err)
			}
			if !slices.Equal(keys, tc.keys) {
				t.Fatalf("PHP sees keys\n%v\nwant\n%v", keys, tc.keys)
			}
		})
	}
}
