package guides

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRank(t *testing.T) {
	c := func(gid GuideID, up, down uint32, premium bool) Candidate {
		return Candidate{Gid: gid, Up: up, Down: down, Premium: premium}
	}
	tests := []struct {
		name  string
		facts RankFacts
		want  []GuideID
	}{
		{"by fraction", RankFacts{Candidates: []Candidate{c(1, 1, 1, false), c(2, 9, 1, false), c(3, 3, 0, false)}},
			[]GuideID{3, 2, 1}},
		{"default first, then premium, then rest", RankFacts{Default: 4, Candidates: []Candidate{
			c(1, 10, 0, false), c(2, 0, 10, true), c(3, 5, 5, true), c(4, 0, 1, false)}},
			[]GuideID{4, 3, 2, 1}},
		{"default that is premium", RankFacts{Default: 2, Candidates: []Candidate{
			c(1, 10, 0, true), c(2, 0, 10, true)}}, []GuideID{2, 1}},
		{"unknown default ignored", RankFacts{Default: 77, Candidates: []Candidate{c(1, 0, 0, false)}}, []GuideID{1}},
		{"favorites after premium, before the rest", RankFacts{Favorites: []GuideID{5, 6}, Candidates: []Candidate{
			c(1, 10, 0, false), c(2, 1, 9, true), c(5, 0, 3, false), c(6, 1, 1, false)}},
			[]GuideID{2, 6, 5, 1}},
		{"ties: more votes first, then lower gid", RankFacts{Candidates: []Candidate{
			c(9, 1, 1, false), c(8, 2, 2, false), c(7, 1, 1, false), c(3, 0, 0, false), c(2, 0, 4, false)}},
			[]GuideID{8, 7, 9, 2, 3}},
		{"no votes counts as zero", RankFacts{Candidates: []Candidate{c(1, 0, 0, false), c(2, 1, 99, false)}},
			[]GuideID{2, 1}},
		{"empty", RankFacts{}, []GuideID{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Rank(tt.facts)
			if !slices.Equal(got.Order, tt.want) {
				t.Fatalf("Rank = %v, want %v", got.Order, tt.want)
			}
			if err := ValidateRank(tt.facts, got); err != nil {
				t.Fatalf("bundled decision refused: %v", err)
			}
		})
	}
}

// Votes of new accounts weigh a quarter (YoungVotesPerVote) in the order:
// the twenty puppets voting down a 19:1 guide do not take it below
// a 14:6 one, while twenty established accounts do.
func TestRankWeighsYoungVotes(t *testing.T) {
	y := func(gid GuideID, up, down, youngUp, youngDown uint32) Candidate {
		return Candidate{Gid: gid, Up: up, Down: down, YoungUp: youngUp, YoungDown: youngDown}
	}
	tests := []struct {
		name  string
		cands []Candidate
		want  []GuideID
	}{
		{"twenty established downs", []Candidate{y(1, 19, 21, 0, 0), y(2, 14, 6, 0, 0)}, []GuideID{2, 1}},
		{"twenty young downs", []Candidate{y(1, 19, 21, 0, 20), y(2, 14, 6, 0, 0)}, []GuideID{1, 2}},
		{"young ups lift less", []Candidate{y(1, 21, 1, 20, 0), y(2, 9, 1, 0, 0)}, []GuideID{2, 1}},
		{"established ups lift fully", []Candidate{y(1, 21, 1, 0, 0), y(2, 9, 1, 0, 0)}, []GuideID{1, 2}},
		// A new server: every vote young, guides go by their true fractions.
		{"all young", []Candidate{y(1, 1, 3, 1, 3), y(2, 3, 1, 3, 1), y(3, 2, 2, 2, 2)}, []GuideID{2, 3, 1}},
		// Equal true fractions: the one with more established votes first.
		{"ties by weighed votes", []Candidate{y(1, 2, 2, 2, 2), y(2, 2, 2, 0, 0)}, []GuideID{2, 1}},
		{"largest counts", []Candidate{y(1, math.MaxUint32, math.MaxUint32, 0, math.MaxUint32),
			y(2, math.MaxUint32, math.MaxUint32, math.MaxUint32, 0), y(3, math.MaxUint32, 1, 0, 0)}, []GuideID{3, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Rank(RankFacts{Candidates: tt.cands}).Order; !slices.Equal(got, tt.want) {
				t.Fatalf("Rank = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRankCutsAndIsStable(t *testing.T) {
	var f RankFacts
	for i := range 50 {
		f.Candidates = append(f.Candidates, Candidate{Gid: GuideID(100 - i), Up: uint32(i % 7), Down: uint32(i % 3)})
	}
	f.Default = 100 // worst rating, still first
	got := Rank(f).Order
	if len(got) != MaxList || got[0] != 100 {
		t.Fatalf("Rank = %v: want %d entries led by the default", got, MaxList)
	}
	slices.Reverse(f.Candidates)
	if again := Rank(f).Order; !slices.Equal(again, got) {
		t.Fatalf("order depends on the candidates' order:\n%v\n%v", got, again)
	}
}

func TestValidateRank(t *testing.T) {
	f := RankFacts{Candidates: []Candidate{{Gid: 1}, {Gid: 2}, {Gid: 3}}}
	long := make([]GuideID, MaxList+1)
	for i := range long {
		long[i] = GuideID(i + 1)
		f.Candidates = append(f.Candidates, Candidate{Gid: GuideID(i + 4)})
	}
	for _, tt := range []struct {
		name  string
		order []GuideID
		ok    bool
	}{
		{"permutation", []GuideID{3, 1, 2}, true},
		{"subset", []GuideID{2}, true},
		{"empty", nil, true},
		{"unknown gid", []GuideID{1, 99}, false},
		{"duplicate", []GuideID{1, 2, 1}, false},
		{"too long", long, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateRank(f, RankDecision{Order: tt.order})
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrBadDecision)) {
				t.Fatalf("ValidateRank(%v) = %v, want ok=%v", tt.order, err, tt.ok)
			}
		})
	}
}

func TestAcceptVote(t *testing.T) {
	for _, f := range []VoteFacts{
		{Account: 1, Gid: 5, Author: 2, New: VoteUp},
		{Account: 1, Gid: 5, Author: 1, Previous: VoteUp, New: VoteDown}, // own guide: counts too
	} {
		if !AcceptVote(f).Counts {
			t.Errorf("AcceptVote(%+v) refused", f)
		}
	}
}

// Rank keeps only the best MaxList while scanning; it must agree with a
// full sort of every candidate.
func TestRankAgreesWithFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		n := r.IntN(60)
		f := RankFacts{Default: GuideID(r.IntN(70))}
		for i := range n {
			f.Candidates = append(f.Candidates, Candidate{Gid: GuideID(i + 1), Up: uint32(r.IntN(5)), Down: uint32(r.IntN(5)), Premium: r.IntN(8) == 0})
			if r.IntN(6) == 0 {
				f.Favorites = append(f.Favorites, GuideID(i+1))
			}
		}
		r.Shuffle(len(f.Candidates), func(i, j int) { f.Candidates[i], f.Candidates[j] = f.Candidates[j], f.Candidates[i] })
		group := func(c Candidate) int {
			switch {
			case c.Gid == f.Default:
				return 0
			case c.Premium:
				return 1
			case slices.Contains(f.Favorites, c.Gid):
				return 2
			}
			return 3
		}
		all := slices.Clone(f.Candidates)
		slices.SortFunc(all, func(a, b Candidate) int {
			if d := group(a) - group(b); d != 0 {
				return d
			}
			return CompareRating(a, b)
		})
		var want []GuideID
		for _, c := range all[:min(len(all), MaxList)] {
			want = append(want, c.Gid)
		}
		if got := Rank(f).Order; !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("round %d: Rank = %v, full sort = %v", round, got, want)
		}
	}
}
