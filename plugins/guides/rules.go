package guides

import (
	"slices"

	"github.com/honmaster/masterserver/plugins/sdk"
)

// The contract's types, defined with the guides decisions in plugins/sdk
// (guides.go) and named here as the rules use them.
type (
	GuideID      = sdk.GuideID
	AccountID    = sdk.GuideAccount
	Vote         = sdk.GuideVote
	Candidate    = sdk.GuideCandidate
	RankFacts    = sdk.GuideRankFacts
	RankDecision = sdk.GuideRankDecision
	VoteFacts    = sdk.GuideVoteFacts
	VoteDecision = sdk.GuideVoteDecision
)

// MaxList is the most guides one list reply carries (the specification's
// limit) and so the longest order a ranking may return.
const MaxList = sdk.MaxGuideList

// Votes. The zero value is "not voted".
const (
	VoteNone = sdk.GuideVoteNone
	VoteDown = sdk.GuideVoteDown
	VoteUp   = sdk.GuideVoteUp
)

// ErrBadDecision: a ranking returned an order the host must refuse; it is
// the contract's sdk.ErrInvalidDecision (matched with errors.Is).
var ErrBadDecision = sdk.ErrInvalidDecision

// ValidateRank checks a ranking's decision against its facts: at most
// MaxList gids, each one of the candidates, none twice. The host refuses a
// decision that fails it (it never repairs one). It is the contract's
// check (sdk.ValidateGuideRank), run on every decision the host receives.
func ValidateRank(f RankFacts, d RankDecision) error { return sdk.ValidateGuideRank(f, d) }

// Rank is the bundled ranking, the specification's order with favorites
// placed:
//
//  1. the account's default guide for the hero, if it is a candidate;
//  2. premium guides;
//  3. the account's favorites;
//  4. all other guides;
//
// cut to MaxList. A guide belongs to the first group it fits. Within each
// group guides go by descending upvote fraction (Up/(Up+Down), compared
// exactly, a guide without votes counting as 0), then more votes first,
// then the lower gid — a total order, so equal facts give equal lists.
//
// The decision is Shared (it does not depend on Account), so the host
// reuses it for every account with the same default and favorites.
//
// Favorites come right after premium guides so that a player always finds
// the guides they marked within the 20 listed, even low-rated ones, while
// the first two groups stay where the specification puts them (the client
// loads the first entry automatically, so the default must lead).
func Rank(f RankFacts) RankDecision {
	fav := make(map[GuideID]bool, len(f.Favorites))
	for _, g := range f.Favorites {
		fav[g] = true
	}
	type ranked struct {
		group int
		c     *Candidate
	}
	less := func(a, b ranked) bool {
		if a.group != b.group {
			return a.group < b.group
		}
		return CompareRating(*a.c, *b.c) < 0
	}
	// Only the best MaxList are listed: keep them sorted while scanning,
	// linear in the number of candidates for a hero with many guides.
	best := make([]ranked, 0, MaxList+1)
	for i := range f.Candidates {
		c := &f.Candidates[i]
		r := ranked{group: 3, c: c}
		switch {
		case f.Default != 0 && c.Gid == f.Default:
			r.group = 0
		case c.Premium:
			r.group = 1
		case fav[c.Gid]:
			r.group = 2
		}
		if len(best) == MaxList && !less(r, best[MaxList-1]) {
			continue
		}
		j := len(best)
		for j > 0 && less(r, best[j-1]) {
			j--
		}
		best = slices.Insert(best, j, r)
		if len(best) > MaxList {
			best = best[:MaxList]
		}
	}
	order := make([]GuideID, len(best))
	for i, r := range best {
		order[i] = r.c.Gid
	}
	// Nothing above reads Account: the order is the same for every
	// account with this default and these favorites.
	return RankDecision{Order: order, Shared: true}
}

// CompareRating orders two guides by rating alone, best first: descending
// upvote fraction, then more votes, then lower gid. It returns a negative
// number when a goes first.
func CompareRating(a, b Candidate) int {
	// a.Up/aTotal > b.Up/bTotal  <=>  a.Up*bTotal > b.Up*aTotal (totals > 0);
	// a guide without votes has fraction 0, which the products give too
	// when its Up is 0 and the other total is used as is.
	aTotal, bTotal := uint64(a.Up)+uint64(a.Down), uint64(b.Up)+uint64(b.Down)
	l, r := uint64(a.Up)*max(bTotal, 1), uint64(b.Up)*max(aTotal, 1)
	switch {
	case l > r:
		return -1
	case l < r:
		return 1
	case aTotal != bTotal:
		if aTotal > bTotal {
			return -1
		}
		return 1
	case a.Gid < b.Gid:
		return -1
	case a.Gid > b.Gid:
		return 1
	}
	return 0
}

// AcceptVote is the bundled vote rule: every vote counts, including an
// author's vote on their own guide. An operator's plugin may refuse such
// votes (VoteFacts carries the author) or any other it does not want.
func AcceptVote(VoteFacts) VoteDecision { return VoteDecision{Counts: true} }
