package guides

import (
	"flag"
	"slices"
	"testing"
	"time"

	"github.com/honmaster/masterserver/wire/wiretest"
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
func goldenCases() []wiretest.Case {
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
	return []wiretest.Case{
		{Name: "list", Value: listReply{status: ok, GuideList: FormatList(entries), HostTime: ht}, Keys: listKeys},
		{Name: "list_empty", Value: listReply{status: ok, HostTime: ht}, Keys: listKeys},
		{Name: "guide_not_voted", Value: newGuideReply(view(VoteNone, false, false), ht), Keys: guideKeys22},
		{Name: "guide_voted_up", Value: newGuideReply(view(VoteUp, true, true), ht), Keys: guideKeys23},
		{Name: "guide_voted_down", Value: newGuideReply(view(VoteDown, false, true), ht), Keys: guideKeys23},
		{Name: "default_set", Value: setReply{status: ok, Set: 1, HostTime: ht}, Keys: setKeys},
		{Name: "default_remove", Value: setReply{status: ok, Set: 0, HostTime: ht}, Keys: setKeys},
		{Name: "vote_up", Value: voteReply{status: ok, Vote: 1, HostTime: ht}, Keys: voteKeys},
		{Name: "vote_down", Value: voteReply{status: ok, Vote: 0, HostTime: ht}, Keys: voteKeys},
		{Name: "no_guides_found", Value: failReply{status: status{Errors: ReasonNotFound.Message()}, HostTime: ht}, Keys: failKeys},
		{Name: "invalid_cookie", Value: failReply{status: status{Errors: ReasonInvalidCookie.Message()}, HostTime: ht}, Keys: failKeys},
		{Name: "wrong_account", Value: failReply{status: status{Errors: ReasonWrongAccount.Message()}, HostTime: ht}, Keys: failKeys},
		{Name: "hosttime_verbatim", Value: voteReply{status: ok, Vote: 1, HostTime: " 0012.50\x00é"}, Keys: voteKeys},
	}
}

// TestGolden checks every reply shape against its fixture, and with real
// PHP (wiretest): unserialize accepts it, serialize gives it back byte for
// byte, and PHP sees the reply's keys in order.
func TestGolden(t *testing.T) {
	wiretest.Golden(t, "testdata", *update, goldenCases())
}
