package guidesapi

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/honmaster/masterserver/plugins/guides/guidesapi/internal/pb"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Facts and decisions of the guides area cross the wire whole.
func TestGuidesCodecsRoundTrip(t *testing.T) {
	f := GuideRankFacts{Account: 7, Hero: "Hero_Parallax", Default: 3, Favorites: []GuideID{2, 3},
		Candidates: []GuideCandidate{
			{Gid: 2, Up: 1, Down: 2, YoungDown: 1, Premium: true, Author: 7, Edited: time.Date(2021, 5, 9, 15, 18, 47, 0, time.UTC)},
			{Gid: 3},
			{Gid: 4, Up: 9, Down: 1, YoungUp: 9},
		}}
	b, err := rankFacts.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rankFacts.Unmarshal(b)
	if err != nil || !reflect.DeepEqual(got, f) {
		t.Errorf("rank facts round trip = %+v, %v; want %+v", got, err, f)
	}
	// Shared candidates encode to facts that decode the same.
	shared, err := ShareGuideCandidates(f.Candidates)
	if err != nil {
		t.Fatal(err)
	}
	sf := GuideRankFacts{Account: 7, Hero: "Hero_Parallax", Default: 3, Favorites: []GuideID{2, 3}}.WithShared(shared)
	if b, err = rankFacts.Marshal(sf); err != nil {
		t.Fatal(err)
	}
	if got, err := rankFacts.Unmarshal(b); err != nil || !reflect.DeepEqual(got, f) {
		t.Errorf("shared rank facts round trip = %+v, %v; want %+v", got, err, f)
	}
	v := GuideVoteFacts{Account: 7, Gid: 2, Author: 7, Previous: GuideVoteDown, New: GuideVoteUp}
	if b, err = voteFacts.Marshal(v); err != nil {
		t.Fatal(err)
	}
	if got, err := voteFacts.Unmarshal(b); err != nil || got != v {
		t.Errorf("vote facts round trip = %+v, %v", got, err)
	}
}

// Malformed messages never become Go values; malformed facts and
// decisions are refused by their checks.
func TestGuidesMalformed(t *testing.T) {
	ragged, _ := proto.Marshal(&pb.RankFacts{Candidates: make([]byte, 30)})
	if _, err := rankFacts.Unmarshal(ragged); !errors.Is(err, sdk.ErrInvalidFacts) {
		t.Errorf("candidates of 30 bytes: %v", err)
	}
	badVote, _ := proto.Marshal(&pb.VoteFacts{New: pb.Vote(9)})
	if _, err := voteFacts.Unmarshal(badVote); !errors.Is(err, sdk.ErrInvalidFacts) {
		t.Errorf("vote 9: %v", err)
	}
	long, _ := proto.Marshal(&pb.RankDecision{Order: make([]uint32, MaxGuideList+1)})
	if _, err := rankResult.Unmarshal(long); !errors.Is(err, sdk.ErrInvalidDecision) {
		t.Errorf("21 gids: %v", err)
	}
	// Young counts: 8 bytes per candidate or none, each within its count.
	for name, m := range map[string]*pb.RankFacts{
		"ragged":          {Candidates: make([]byte, 25), Young: make([]byte, 4)},
		"one too many":    {Candidates: make([]byte, 25), Young: make([]byte, 16)},
		"above the count": {Candidates: make([]byte, 25), Young: []byte{0, 0, 0, 0, 1, 0, 0, 0}},
	} {
		b, _ := proto.Marshal(m)
		if _, err := rankFacts.Unmarshal(b); !errors.Is(err, sdk.ErrInvalidFacts) {
			t.Errorf("young counts %s: %v, want refused", name, err)
		}
	}
	if err := (GuideRankFacts{Candidates: []GuideCandidate{{Gid: 1, Up: 1, YoungUp: 2}}}).Validate(); !errors.Is(err, sdk.ErrInvalidFacts) {
		t.Errorf("young up above up: %v, want refused", err)
	}
	for _, cs := range [][]GuideCandidate{{{Gid: 2}, {Gid: 1}}, {{Gid: 1}, {Gid: 1}}, {{Gid: 0}}} {
		if err := (GuideRankFacts{Candidates: cs}).Validate(); !errors.Is(err, sdk.ErrInvalidFacts) {
			t.Errorf("candidates %v: %v, want refused", cs, err)
		}
	}
	f := GuideRankFacts{Candidates: []GuideCandidate{{Gid: 1}, {Gid: 5}, {Gid: 9}}}
	for _, tc := range []struct {
		order []GuideID
		ok    bool
	}{
		{[]GuideID{9, 1, 5}, true},
		{nil, true},
		{[]GuideID{9, 4}, false},
		{[]GuideID{5, 9, 5}, false},
		{make([]GuideID, MaxGuideList+1), false},
	} {
		err := ValidateGuideRank(f, GuideRankDecision{Order: tc.order})
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, sdk.ErrInvalidDecision)) {
			t.Errorf("order %v: %v, want ok=%t", tc.order, err, tc.ok)
		}
	}
}
