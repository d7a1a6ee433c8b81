package guides

import (
	"cmp"
	"fmt"
	"slices"

	rules "github.com/honmaster/masterserver/plugins/guides"
	"github.com/honmaster/masterserver/storage"
)

// Marks are one account's flags and votes on guides: the state the
// account's actor owns and changes (one writer per account). The zero value
// is an account without marks.
type Marks struct {
	Defaults  map[string]GuideID // hero CLI name -> the account's default guide
	Favorites map[GuideID]bool
	Votes     map[GuideID]Vote
}

// Flags returns the account's flags on g.
func (m *Marks) Flags(g *Guide) Flags {
	return Flags{Default: m.Defaults[g.Hero] == g.Gid, Favorite: m.Favorites[g.Gid], Vote: m.Votes[g.Gid]}
}

// SetFlag sets or removes flag on g and reports whether anything changed.
// Setting a default replaces the account's default for g's hero (one per
// hero); removing a default that is another guide's changes nothing.
func (m *Marks) SetFlag(g *Guide, flag Flag, on bool) (changed bool, err error) {
	switch flag {
	case FlagDefault:
		cur, has := m.Defaults[g.Hero]
		switch {
		case on && cur != g.Gid:
			if m.Defaults == nil {
				m.Defaults = map[string]GuideID{}
			}
			m.Defaults[g.Hero] = g.Gid
			return true, nil
		case !on && has && cur == g.Gid:
			delete(m.Defaults, g.Hero)
			return true, nil
		}
		return false, nil
	case FlagFavorite:
		if m.Favorites[g.Gid] == on {
			return false, nil
		}
		if on {
			if m.Favorites == nil {
				m.Favorites = map[GuideID]bool{}
			}
			m.Favorites[g.Gid] = true
		} else {
			delete(m.Favorites, g.Gid)
		}
		return true, nil
	}
	return false, Fail(ReasonInternal, fmt.Errorf("unknown flag %d", flag))
}

// SetVote records v (VoteUp or VoteDown) on gid and returns the vote it
// replaces; prev == v means nothing changed (a repeated vote). The caller
// applies Tally.Apply with both votes' ballots after its commit.
func (m *Marks) SetVote(gid GuideID, v Vote) (prev Vote, err error) {
	if v != VoteUp && v != VoteDown {
		return VoteNone, Fail(ReasonBadRequest, fmt.Errorf("vote %v", v))
	}
	prev = m.Votes[gid]
	if prev != v {
		if m.Votes == nil {
			m.Votes = map[GuideID]Vote{}
		}
		m.Votes[gid] = v
	}
	return prev, nil
}

// RankFacts builds the facts for ranking hero's list for acct: every
// visible guide of the hero (callers pass the hero's guides; hidden ones
// and other heroes' are skipped) with its full counts and their young part
// (Tally.RankCounts: the ranking may weigh new accounts' votes less; the
// list shows the full counts), and the account's default and favorites
// among them. Candidates are in gid order, so equal state gives equal
// facts.
func RankFacts(acct storage.AccountID, hero string, heroGuides []*Guide, m *Marks, t *Tally) rules.RankFacts {
	f := rules.RankFacts{Account: rules.AccountID(acct), Hero: hero}
	for _, g := range heroGuides {
		if g.Hidden || g.Hero != hero {
			continue
		}
		// The young part is within its count, except for the instant
		// between two out-of-order Applies of one account's votes (their
		// modular deltas commute): bounded here so that such an instant
		// never makes malformed facts.
		c, young := t.RankCounts(g)
		f.Candidates = append(f.Candidates, rules.Candidate{Gid: g.Gid, Up: c.Up, Down: c.Down,
			YoungUp: min(young.Up, c.Up), YoungDown: min(young.Down, c.Down), Premium: g.Premium,
			Author: rules.AccountID(g.Author), Edited: g.Edited})
		if m.Defaults[hero] == g.Gid {
			f.Default = g.Gid
		}
		if m.Favorites[g.Gid] {
			f.Favorites = append(f.Favorites, g.Gid)
		}
	}
	byGid := func(a, b rules.Candidate) int { return cmp.Compare(a.Gid, b.Gid) }
	if !slices.IsSortedFunc(f.Candidates, byGid) {
		slices.SortFunc(f.Candidates, byGid)
	}
	slices.Sort(f.Favorites)
	return f
}

// ListEntries checks a ranking's decision against its facts (refusing it,
// never repairing it: ErrUnavailable wrapping rules.ErrBadDecision) and
// turns it into list entries for acct. byGid must hold every candidate.
// shown are the counts the decision was ranked on, one per gid of
// d.Order (RankedCounts): the ratings a list shows come from the same
// counts as its order, never from counts read after it.
func ListEntries(acct storage.AccountID, f rules.RankFacts, d rules.RankDecision, shown []Counts, byGid func(GuideID) *Guide, m *Marks) ([]ListEntry, error) {
	if err := rules.ValidateRank(f, d); err != nil {
		return nil, Fail(ReasonUnavailable, err)
	}
	if len(shown) != len(d.Order) {
		return nil, Fail(ReasonInternal, fmt.Errorf("%d counts for %d listed guides", len(shown), len(d.Order)))
	}
	out := make([]ListEntry, 0, len(d.Order))
	for i, gid := range d.Order {
		g := byGid(gid)
		if g == nil {
			return nil, Fail(ReasonInternal, fmt.Errorf("candidate %d vanished", gid))
		}
		out = append(out, ListEntry{Gid: gid, Edited: g.Edited, AuthorName: g.AuthorName, Name: g.Name,
			Counts: shown[i], Premium: g.Premium, Default: f.Default == gid, Favorite: m.Favorites[gid],
			Yours: g.Author != 0 && g.Author == acct})
	}
	return out, nil
}

// RankedCounts returns the counts of order's guides as cands (in ascending
// gid order, as facts hold them) give them: the counts a ranking of cands
// saw. A gid that is not a candidate gets zero counts; ValidateRank refuses
// an order holding one.
func RankedCounts(cands []rules.Candidate, order []GuideID) []Counts {
	out := make([]Counts, len(order))
	for i, gid := range order {
		if j, ok := slices.BinarySearchFunc(cands, gid, func(c rules.Candidate, gid GuideID) int { return cmp.Compare(c.Gid, gid) }); ok {
			out[i] = Counts{Up: cands[j].Up, Down: cands[j].Down}
		}
	}
	return out
}
