package guidesrank

import (
	"slices"
	"testing"

	"github.com/honmaster/masterserver/plugins/guides"
)

func TestReverse(t *testing.T) {
	f := guides.RankFacts{Default: 2}
	for g := guides.GuideID(1); g <= 30; g++ {
		f.Candidates = append(f.Candidates, guides.Candidate{Gid: g, Up: uint32(g)})
	}
	got := Reverse(f).Order
	// Bundled: 2 first, then 30, 29, ... 3, 1 (by rating). Reversed: 1, 3, 4, ... cut to 20.
	want := []guides.GuideID{1}
	for g := guides.GuideID(3); len(want) < 20; g++ {
		want = append(want, g)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Reverse = %v, want %v", got, want)
	}
	if err := guides.ValidateRank(f, guides.RankDecision{Order: got}); err != nil {
		t.Error(err)
	}
}
