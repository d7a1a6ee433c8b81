package guides

import (
	"strings"

	"github.com/honmaster/masterserver/wire"
)

// Reply shapes, entries in wire order. Every reply echoes hosttime as the
// exact string the request sent (the client drops a reply whose hosttime
// differs) and ends with the two trailing extras.

// status opens every guide reply.
type status struct {
	Errors  string `php:"errors"`  // "" on success
	Success int    `php:"success"` // 1 or 0
}

var ok = status{Success: 1}

// listReply answers get_guide_list_filtered (6 entries).
type listReply struct {
	status
	GuideList string `php:"guide_list"`
	HostTime  string `php:"hosttime"`
	wire.Extras
}

// guideReply answers get_guide: 22 entries for a requester who has not
// voted. For one who has, Vote adds a 23rd entry right after thumb (the two
// describe the same vote; the client disables its vote buttons only when
// thumb is not empty and vote is 1 or 0).
type guideReply struct {
	status
	Datetime   string `php:"datetime"`
	AuthorName string `php:"author_name"`
	Hero       string `php:"hero_cli_name"`
	GuideName  string `php:"guide_name"`
	HeroName   string `php:"hero_name"`
	Default    int    `php:"default"`
	Favorite   int    `php:"favorite"`
	Rating     string `php:"rating"`
	Thumb      string `php:"thumb"`
	Vote       *int   `php:"vote,omitempty"` // nil: not voted, no key
	Premium    string `php:"premium"`
	Start      string `php:"i_start"`
	Laning     string `php:"i_laning"`
	Core       string `php:"i_core"`
	Luxury     string `php:"i_luxury"`
	Abil       string `php:"abilQ"`
	Intro      string `php:"txt_intro"`
	Text       string `php:"txt_guide"` // never used; always empty
	HostTime   string `php:"hosttime"`
	wire.Extras
}

// setReply answers the four default/favorite functions (6 entries): set is
// 1 after a set, 0 after a remove.
type setReply struct {
	status
	Set      int    `php:"set"`
	HostTime string `php:"hosttime"`
	wire.Extras
}

// voteReply answers guide_vote (6 entries): vote echoes v (1 up, 0 down).
type voteReply struct {
	status
	Vote     int    `php:"vote"`
	HostTime string `php:"hosttime"`
	wire.Extras
}

// failReply is every guide function's failure (5 entries): the shape of the
// recorded no_guides_found answer, with the reason's text in errors.
type failReply struct {
	status
	HostTime string `php:"hosttime"`
	wire.Extras
}

// GuideView is one guide as a requester sees it: the guide, its full
// counts and the requester's flags.
type GuideView struct {
	Guide  Guide
	Counts Counts
	Flags  Flags
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// voteValue is the wire's vote value: 1 up, 0 down.
func voteValue(v Vote) int { return boolInt(v == VoteUp) }

func newGuideReply(v GuideView, hostTime string) guideReply {
	g := v.Guide
	r := guideReply{
		status:     ok,
		Datetime:   FormatDate(g.Edited),
		AuthorName: EscapeName(g.AuthorName),
		Hero:       g.Hero,
		GuideName:  EscapeName(g.Name),
		HeroName:   g.HeroName,
		Default:    boolInt(v.Flags.Default),
		Favorite:   boolInt(v.Flags.Favorite),
		Rating:     FormatRating(v.Counts),
		Thumb:      Thumb(v.Flags.Vote),
		Premium:    pick(g.Premium, "1", "0"),
		Start:      strings.Join(g.Start, "|"),
		Laning:     strings.Join(g.Laning, "|"),
		Core:       strings.Join(g.Core, "|"),
		Luxury:     strings.Join(g.Luxury, "|"),
		Abil:       strings.Join(g.Abil, "|"),
		Intro:      g.Intro,
		HostTime:   hostTime,
	}
	if v.Flags.Vote != VoteNone {
		n := voteValue(v.Flags.Vote)
		r.Vote = &n
	}
	return r
}
