package guides

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/honmaster/masterserver/plugins/guides/guidesapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// The bundled plugin over real gRPC: facts and decisions cross the wire
// whole, its order is Rank's, its vote rule AcceptVote's, and a ranking
// that breaks the contract is refused by the host's check.
func TestPluginOverGRPC(t *testing.T) {
	ctx := context.Background()
	c := sdk.TestClient(t, Plugin())
	edited := time.Date(2021, 5, 9, 15, 18, 47, 0, time.UTC)
	f := RankFacts{Account: 7, Hero: "Hero_Pyromancer", Default: 4, Favorites: []GuideID{3},
		Candidates: []Candidate{
			{Gid: 1, Up: 9, Down: 1, Edited: edited},
			{Gid: 2, Up: 1, Down: 9, Premium: true, Author: 7},
			{Gid: 3},
			{Gid: 4, Up: 0, Down: 5},
			{Gid: 5, Up: 5, Down: 5},
		}}
	res, err := guidesapi.Rank.Decide(ctx, c, sdk.Call[RankFacts]{Facts: f, State: []byte("s")})
	if err != nil {
		t.Fatal(err)
	}
	if want := Rank(f).Order; !slices.Equal(res.Decision.Order, want) || !slices.Equal(want, []GuideID{4, 2, 3, 1, 5}) {
		t.Errorf("order %v, want Rank's %v = [4 2 3 1 5]", res.Decision.Order, want)
	}
	if !res.Decision.Shared {
		t.Error("the bundled ranking's decision arrived not Shared: the host could not reuse it across accounts")
	}
	if string(res.State) != "s" {
		t.Errorf("state %q, want the state given back", res.State)
	}
	v, err := guidesapi.Vote.Decide(ctx, c, sdk.Call[VoteFacts]{Facts: VoteFacts{Account: 7, Gid: 2, Author: 7, New: VoteUp}})
	if err != nil || !v.Decision.Counts {
		t.Errorf("vote: %+v, %v; want counted", v, err)
	}
	if _, err := guidesapi.Vote.Decide(ctx, c, sdk.Call[VoteFacts]{Facts: VoteFacts{New: VoteNone}}); !errors.Is(err, sdk.ErrInvalidFacts) {
		t.Errorf("vote none: %v, want ErrInvalidFacts", err)
	}

	bad := RulesPlugin("bad", func(f RankFacts) RankDecision { return RankDecision{Order: []GuideID{1, 99}} }, AcceptVote)
	if _, err := guidesapi.Rank.Decide(ctx, sdk.TestClient(t, bad), sdk.Call[RankFacts]{Facts: f}); !errors.Is(err, ErrBadDecision) {
		t.Errorf("order with a stranger: %v, want refused", err)
	}
	dup := RulesPlugin("dup", func(f RankFacts) RankDecision { return RankDecision{Order: []GuideID{1, 1}} }, AcceptVote)
	if _, err := guidesapi.Rank.Decide(ctx, dup, sdk.Call[RankFacts]{Facts: f}); !errors.Is(err, sdk.ErrInvalidDecision) {
		t.Errorf("order with a duplicate: %v, want refused", err)
	}
}
