package guides

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/honmaster/masterserver/plugins/guides/guidesapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// The contract's types, defined with the guides decisions in package
// guidesapi and named here as the rules use them.
type (
	GuideID      = guidesapi.GuideID
	AccountID    = guidesapi.GuideAccount
	Vote         = guidesapi.GuideVote
	Candidate    = guidesapi.GuideCandidate
	RankFacts    = guidesapi.GuideRankFacts
	RankDecision = guidesapi.GuideRankDecision
	VoteFacts    = guidesapi.GuideVoteFacts
	VoteDecision = guidesapi.GuideVoteDecision
)

// MaxList is the most guides one list reply carries (the specification's
// limit) and so the longest order a ranking may return.
const MaxList = guidesapi.MaxGuideList

// Votes. The zero value is "not voted".
const (
	VoteNone = guidesapi.GuideVoteNone
	VoteDown = guidesapi.GuideVoteDown
	VoteUp   = guidesapi.GuideVoteUp
)

// ErrBadDecision: a ranking returned an order the host must refuse; it is
// the contract's sdk.ErrInvalidDecision (matched with errors.Is).
var ErrBadDecision = sdk.ErrInvalidDecision

// ValidateRank checks a ranking's decision against its facts: at most
// MaxList gids, each one of the candidates, none twice. The host refuses a
// decision that fails it (it never repairs one). It is the contract's
// check (guidesapi.ValidateGuideRank), run on every decision the host receives.
func ValidateRank(f RankFacts, d RankDecision) error { return guidesapi.ValidateGuideRank(f, d) }

// Rank is the bundled ranking, the specification's order with favorites
// placed:
//
//  1. the account's default guide for the hero, if it is a candidate;
//  2. premium guides;
//  3. the account's favorites;
//  4. all other guides;
//
// cut to MaxList. A guide belongs to the first group it fits. Within each
// group guides go by descending weighed upvote fraction (CompareRating:
// compared exactly, a guide without votes counting as 0), then more weighed
// votes first, then the lower gid — a total order, so equal facts give
// equal lists.
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

// YoungVotesPerVote is how many votes of new accounts (the candidates'
// YoungUp and YoungDown) weigh as much as one other vote in the bundled
// ranking. Sock puppets are new accounts: twenty of them voting a guide
// down move its place as five established players would. Young votes
// still count — on a new server, where every account is new, they rank
// guides by their true fractions — and the counts players are shown stay
// exact (the host shows Up and Down, not the weights).
const YoungVotesPerVote = 4

// weighed returns c's up votes and all its votes, each established vote
// counting YoungVotesPerVote times and each young vote once (at most
// 4*(2^32-1)*2, well within 64 bits).
func weighed(c Candidate) (up, total uint64) {
	const w = YoungVotesPerVote
	youngUp, youngDown := uint64(min(c.YoungUp, c.Up)), uint64(min(c.YoungDown, c.Down))
	up = w*(uint64(c.Up)-youngUp) + youngUp
	down := w*(uint64(c.Down)-youngDown) + youngDown
	return up, up + down
}

// CompareRating orders two guides by rating alone, best first: descending
// weighed upvote fraction, then more weighed votes, then lower gid, where
// a new account's vote weighs 1/YoungVotesPerVote of another's. It returns
// a negative number when a goes first.
func CompareRating(a, b Candidate) int {
	// aUp/aTotal > bUp/bTotal  <=>  aUp*bTotal > bUp*aTotal (totals > 0);
	// a guide without votes has fraction 0, which the products give too
	// when its up is 0 and the other total is used as is. The products
	// need up to 70 bits: compared as 128-bit numbers.
	aUp, aTotal := weighed(a)
	bUp, bTotal := weighed(b)
	lHi, lLo := bits.Mul64(aUp, max(bTotal, 1))
	rHi, rLo := bits.Mul64(bUp, max(aTotal, 1))
	switch {
	case lHi != rHi:
		return -cmp.Compare(lHi, rHi)
	case lLo != rLo:
		return -cmp.Compare(lLo, rLo)
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
