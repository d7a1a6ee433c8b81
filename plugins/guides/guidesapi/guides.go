package guidesapi

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/honmaster/masterserver/plugins/sdk"
)

// Area is the hero guides area: the one place its name is written.
var Area = sdk.RegisterArea("guides")

// Rank is the guides area's ranking decision: the order of a hero's
// list for one account. A list is a read: the host gives the plugin its
// stored state for the account and refuses a result that changes it. The
// host checks the order with ValidateGuideRank and refuses it, never
// repairs it.
//
// A ranking must be a function of its facts and state (no clock, no
// randomness): the host reuses a decision for later lists with the same
// facts instead of asking again — for the same account, or for every
// account with the same Default and Favorites when the decision is Shared
// — while the hero's guides are unchanged, and for a bounded time (the
// host's guides.rank_staleness) after their counts changed.
var Rank = sdk.NewDecision(sdk.DecisionDef[GuideRankFacts, GuideRankDecision]{
	Area: Area, Name: "rank", Version: 1,
	Facts:      rankFacts,
	Result:     rankResult,
	CheckFacts: GuideRankFacts.Validate,
	Check:      ValidateGuideRank,
})

// Vote is the guides area's vote decision: whether one vote counts.
// The host's vote Change calls it inside the account's actor; a vote that
// does not count is refused and nothing is stored.
var Vote = sdk.NewDecision(sdk.DecisionDef[GuideVoteFacts, GuideVoteDecision]{
	Area: Area, Name: "vote", Version: 1,
	Facts:      voteFacts,
	Result:     voteResult,
	CheckFacts: GuideVoteFacts.Validate,
	Check:      func(GuideVoteFacts, GuideVoteDecision) error { return nil },
})

// GuideID is a guide's id (gid on the wire).
type GuideID uint32

// GuideAccount is an account's id in the guides contract; 0 means "no
// account" (a guide whose author is not an account of this server).
type GuideAccount uint32

// MaxGuideList is the most guides one list reply carries (the
// specification's limit) and so the longest order a ranking may return.
const MaxGuideList = 20

// GuideVote is an account's vote on a guide.
type GuideVote uint8

// Votes. The zero value is "not voted".
const (
	GuideVoteNone GuideVote = iota
	GuideVoteDown
	GuideVoteUp
)

// Valid reports whether v is one of the three votes.
func (v GuideVote) Valid() bool { return v <= GuideVoteUp }

func (v GuideVote) String() string {
	switch v {
	case GuideVoteNone:
		return "none"
	case GuideVoteDown:
		return "down"
	case GuideVoteUp:
		return "up"
	}
	return fmt.Sprintf("Vote(%d)", uint8(v))
}

// GuideCandidate is one visible guide of the hero, with what a ranking may
// use. Up and Down are the guide's full counts (imported plus players'),
// the counts players are shown.
//
// YoungUp and YoungDown are the part of Up and Down cast by accounts that
// were new (younger than the host's limits.new_account_age) when they
// voted: sock puppets registered for a vote are new. A vote keeps the class
// it was cast with (an account that ages does not re-weigh its earlier
// votes). Imported counts are never young. A ranking may weigh these votes
// less; the bundled one counts four of them as one (plugins/guides).
type GuideCandidate struct {
	Gid       GuideID
	Up        uint32
	Down      uint32
	YoungUp   uint32 // at most Up
	YoungDown uint32 // at most Down
	Premium   bool
	Author    GuideAccount // 0: not an account of this server
	Edited    time.Time    // last-edited date
}

// GuideRankFacts are what the host gives a ranking for one list request:
// the requesting account, the hero, the account's flags and every visible
// guide of the hero (hidden guides are never candidates).
type GuideRankFacts struct {
	Account    GuideAccount
	Hero       string    // hero CLI name, e.g. "Hero_Pyromancer"
	Default    GuideID   // the account's default guide for the hero; 0: none
	Favorites  []GuideID // the account's favorite guides among the candidates
	Candidates []GuideCandidate

	shared *SharedGuideCandidates // Candidates' encoding, when set by WithShared
}

// SharedGuideCandidates is a hero's candidate list encoded once for the
// wire, for a host that sends the same candidates to many rank decisions
// (every list request of the hero until a count or a guide changes). It is
// immutable: never change the slice given to ShareGuideCandidates.
type SharedGuideCandidates struct {
	list   []GuideCandidate
	wire   []byte
	sorted bool // list is in ascending gid order (checked once)
}

// ShareGuideCandidates encodes cs once (see SharedGuideCandidates).
func ShareGuideCandidates(cs []GuideCandidate) (*SharedGuideCandidates, error) {
	b, err := proto.Marshal(rankFactsToProto(GuideRankFacts{Candidates: cs}))
	if err != nil {
		return nil, err
	}
	return &SharedGuideCandidates{list: cs, wire: b, sorted: slices.IsSortedFunc(cs, compareCandidates)}, nil
}

// List is the shared candidates.
func (s *SharedGuideCandidates) List() []GuideCandidate { return s.list }

func compareCandidates(a, b GuideCandidate) int { return cmp.Compare(a.Gid, b.Gid) }

// sharedCandidates returns the shared candidates f's Candidates are, or
// nil when they are not (any more) exactly those.
func (f GuideRankFacts) sharedCandidates() *SharedGuideCandidates {
	s := f.shared
	if s == nil || len(s.list) != len(f.Candidates) || (len(s.list) > 0 && &s.list[0] != &f.Candidates[0]) {
		return nil
	}
	return s
}

// WithShared returns f with the shared candidates as its Candidates; the
// facts' encoding then reuses their bytes instead of encoding every
// candidate again. A plugin sees the same facts either way.
func (f GuideRankFacts) WithShared(s *SharedGuideCandidates) GuideRankFacts {
	f.Candidates, f.shared = s.list, s
	return f
}

// Validate reports malformed facts (wrapping ErrInvalidFacts): candidates
// must be in strictly ascending gid order, none 0 (so none twice; the
// order also lets ValidateGuideRank check a decision without a map), and
// their young counts within their counts.
func (f GuideRankFacts) Validate() error {
	var last GuideID
	for i, c := range f.Candidates {
		if c.Gid <= last {
			return fmt.Errorf("%w: candidate %d: gid %d after %d, want ascending non-zero gids", sdk.ErrInvalidFacts, i, c.Gid, last)
		}
		if err := c.checkYoung(); err != nil {
			return fmt.Errorf("%w: candidate %d: %w", sdk.ErrInvalidFacts, i, err)
		}
		last = c.Gid
	}
	return nil
}

// checkYoung reports young counts above their counts.
func (c GuideCandidate) checkYoung() error {
	if c.YoungUp > c.Up || c.YoungDown > c.Down {
		return fmt.Errorf("young votes %d up %d down of %d up %d down", c.YoungUp, c.YoungDown, c.Up, c.Down)
	}
	return nil
}

// GuideRankDecision is a ranking's answer: the gids to list, in order. It
// may leave candidates out (an operator's plugin may filter), but holds at
// most MaxGuideList gids, each a candidate, none twice (ValidateGuideRank).
type GuideRankDecision struct {
	Order []GuideID
	// Shared declares that Order depends only on the facts' Hero,
	// Candidates, Default and Favorites — not on Account nor on the
	// plugin's state — so the host may reuse it for every account with the
	// same default and favorites. False (the zero value, and what a plugin
	// unaware of the field sends) limits reuse to the same account.
	Shared bool
}

// ValidateGuideRank checks a ranking's decision against its facts: at most
// MaxGuideList gids, each one of the candidates, none twice. Errors wrap
// ErrInvalidDecision; the host refuses such a decision (never repairs it).
func ValidateGuideRank(f GuideRankFacts, d GuideRankDecision) error {
	if len(d.Order) > MaxGuideList {
		return fmt.Errorf("%w: %d guides, at most %d", sdk.ErrInvalidDecision, len(d.Order), MaxGuideList)
	}
	var sorted bool
	if s := f.sharedCandidates(); s != nil {
		sorted = s.sorted // checked once for every list of the hero
	} else {
		sorted = slices.IsSortedFunc(f.Candidates, compareCandidates)
	}
	for i, g := range d.Order {
		var ok bool
		if sorted {
			_, ok = slices.BinarySearchFunc(f.Candidates, g, func(c GuideCandidate, g GuideID) int { return cmp.Compare(c.Gid, g) })
		} else {
			ok = slices.ContainsFunc(f.Candidates, func(c GuideCandidate) bool { return c.Gid == g })
		}
		switch {
		case !ok:
			return fmt.Errorf("%w: entry %d: gid %d is not a candidate", sdk.ErrInvalidDecision, i, g)
		case slices.Contains(d.Order[:i], g):
			return fmt.Errorf("%w: entry %d: gid %d listed twice", sdk.ErrInvalidDecision, i, g)
		}
	}
	return nil
}

// GuideVoteFacts are what the host gives the vote rule for one guide_vote.
type GuideVoteFacts struct {
	Account  GuideAccount
	Gid      GuideID
	Author   GuideAccount // the guide's author account; 0: none
	Previous GuideVote    // the account's vote before this one
	New      GuideVote    // GuideVoteUp or GuideVoteDown
}

// Validate reports malformed facts (wrapping ErrInvalidFacts).
func (f GuideVoteFacts) Validate() error {
	if !f.Previous.Valid() || (f.New != GuideVoteUp && f.New != GuideVoteDown) {
		return fmt.Errorf("%w: vote %v after %v", sdk.ErrInvalidFacts, f.New, f.Previous)
	}
	return nil
}

// GuideVoteDecision is the vote rule's answer. Counts false refuses the
// vote: the host stores nothing and answers a failure.
type GuideVoteDecision struct {
	Counts bool
}

// RankFactsBytes encodes rank facts as the host sends them (for a
// plugin's benchmarks and tests that call Plugin.Decide with bytes).
func RankFactsBytes(f GuideRankFacts) ([]byte, error) { return rankFacts.Marshal(f) }
