package matches

import (
	"context"
	"errors"
	"testing"

	"github.com/honmaster/masterserver/plugins/matches/matchesapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

func facts() matchesapi.TallyFacts {
	return matchesapi.TallyFacts{MatchID: 7, Players: []matchesapi.PlayerFacts{
		{AccountID: 1, Team: 1, Win: true, Kills: 5, Deaths: 1, Assists: 9, Hero: "Hero_Pyromancer",
			PubSkill: 12345, PubCount: 1, TeamRating: -7000, TeamCount: 1},
		{AccountID: 2, Team: 2, Loss: true, Concede: true, Kills: 0, Deaths: 5, Assists: 0, Hero: "Hero_Chronos"},
		{AccountID: 3, Team: 2, Loss: true, Disco: true},
	}}
}

// TestDecide: each delta is what the facts call for, and passes the
// host's check.
func TestDecide(t *testing.T) {
	f := facts()
	d := Decide(f)
	if err := matchesapi.Check(f, d); err != nil {
		t.Fatal(err)
	}
	want := []matchesapi.Delta{
		// a public match: the public skill moves, no team rating does
		{AccountID: 1, Matches: 1, Wins: 1, Kills: 5, Deaths: 1, Assists: 9, Hero: "Hero_Pyromancer", PubSkill: 12345},
		{AccountID: 2, Matches: 1, Losses: 1, Concedes: 1, Deaths: 5, Hero: "Hero_Chronos"},
		{AccountID: 3, Matches: 1, Losses: 1, Discos: 1},
	}
	for i := range want {
		if d.Deltas[i] != want[i] {
			t.Errorf("delta %d = %+v, want %+v", i, d.Deltas[i], want[i])
		}
	}
}

// TestDecideBuckets: a match counts in its bucket; the public skill
// moves only in a public match with pub_count 1, the team rating only in
// a ranked or casual one with amm_team_count 1.
func TestDecideBuckets(t *testing.T) {
	for _, c := range []struct {
		bucket               matchesapi.Bucket
		pubCount, teamCount  int32
		pubSkill, teamRating int32
	}{
		{matchesapi.BucketPublic, 1, 1, 12345, 0},
		{matchesapi.BucketPublic, 0, 1, 0, 0},
		{matchesapi.BucketPublic, 2, 1, 0, 0},
		{matchesapi.BucketRanked, 1, 1, 0, -7000},
		{matchesapi.BucketCasual, 1, 1, 0, -7000},
		{matchesapi.BucketCasual, 1, 0, 0, 0},
		{matchesapi.BucketMidWars, 1, 1, 0, 0},
		{matchesapi.BucketRiftWars, 1, 1, 0, 0},
	} {
		f := facts()
		f.Bucket = c.bucket
		f.Players[0].PubCount, f.Players[0].TeamCount = c.pubCount, c.teamCount
		d := Decide(f)
		if err := matchesapi.Check(f, d); err != nil {
			t.Fatal(err)
		}
		got := d.Deltas[0]
		if got.Bucket != c.bucket || got.PubSkill != c.pubSkill || got.TeamRating != c.teamRating || got.Matches != 1 {
			t.Errorf("%v counts %d/%d: %+v, want skill %d rating %d", c.bucket, c.pubCount, c.teamCount, got, c.pubSkill, c.teamRating)
		}
	}
}

// TestCheckRefuses: the host refuses a decision that invents a win,
// counts a match twice, drops or reorders a player, or changes K/D/A.
func TestCheckRefuses(t *testing.T) {
	f := facts()
	for name, edit := range map[string]func(*matchesapi.TallyDecision){
		"invented win":   func(d *matchesapi.TallyDecision) { d.Deltas[1].Wins = 1 },
		"two matches":    func(d *matchesapi.TallyDecision) { d.Deltas[0].Matches = 2 },
		"a player less":  func(d *matchesapi.TallyDecision) { d.Deltas = d.Deltas[:2] },
		"reordered":      func(d *matchesapi.TallyDecision) { d.Deltas[0], d.Deltas[1] = d.Deltas[1], d.Deltas[0] },
		"more kills":     func(d *matchesapi.TallyDecision) { d.Deltas[0].Kills++ },
		"another hero":   func(d *matchesapi.TallyDecision) { d.Deltas[0].Hero = "Hero_Other" },
		"no match count": func(d *matchesapi.TallyDecision) { d.Deltas[2].Matches = 0 },
		"other bucket":   func(d *matchesapi.TallyDecision) { d.Deltas[0].Bucket = matchesapi.BucketRanked },
		"invented skill": func(d *matchesapi.TallyDecision) { d.Deltas[1].PubSkill = 5000 },
		"changed skill":  func(d *matchesapi.TallyDecision) { d.Deltas[0].PubSkill++ },
		"public rating":  func(d *matchesapi.TallyDecision) { d.Deltas[0].TeamRating = 1000 },
	} {
		d := Decide(f)
		edit(&d)
		if err := matchesapi.Check(f, d); !errors.Is(err, sdk.ErrInvalidDecision) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestCheckFacts refuses malformed facts.
func TestCheckFacts(t *testing.T) {
	if err := matchesapi.CheckFacts(facts()); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(*matchesapi.TallyFacts){
		"no match":          func(f *matchesapi.TallyFacts) { f.MatchID = 0 },
		"no players":        func(f *matchesapi.TallyFacts) { f.Players = nil },
		"twice":             func(f *matchesapi.TallyFacts) { f.Players[1].AccountID = 1 },
		"no account":        func(f *matchesapi.TallyFacts) { f.Players[0].AccountID = 0 },
		"negative":          func(f *matchesapi.TallyFacts) { f.Players[0].Kills = -1 },
		"too many":          func(f *matchesapi.TallyFacts) { f.Players[0].Deaths = matchesapi.MaxCount + 1 },
		"too many play":     func(f *matchesapi.TallyFacts) { f.Players = make([]matchesapi.PlayerFacts, matchesapi.MaxPlayers+1) },
		"won and lost":      func(f *matchesapi.TallyFacts) { f.Players[0].Loss = true },
		"both teams won":    func(f *matchesapi.TallyFacts) { f.Players[1].Win, f.Players[1].Loss = true, false },
		"team won and lost": func(f *matchesapi.TallyFacts) { f.Players[2].Team = 1 },
		"unknown bucket":    func(f *matchesapi.TallyFacts) { f.Bucket = 5 },
		"negative bucket":   func(f *matchesapi.TallyFacts) { f.Bucket = -1 },
		"skill too high":    func(f *matchesapi.TallyFacts) { f.Players[0].PubSkill = matchesapi.MaxRatingChange + 1 },
		"rating too low":    func(f *matchesapi.TallyFacts) { f.Players[0].TeamRating = -matchesapi.MaxRatingChange - 1 },
		"negative count":    func(f *matchesapi.TallyFacts) { f.Players[0].PubCount = -1 },
		"team count high":   func(f *matchesapi.TallyFacts) { f.Players[0].TeamCount = matchesapi.MaxCount + 1 },
	} {
		f := facts()
		edit(&f)
		if err := matchesapi.CheckFacts(f); !errors.Is(err, sdk.ErrInvalidFacts) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestThroughTheSDK: the decision round-trips through the plugin's
// handler and the contract's codecs.
func TestThroughTheSDK(t *testing.T) {
	c := sdk.TestClient(t, Plugin())
	f := facts()
	f.Bucket = matchesapi.BucketRanked
	res, err := matchesapi.Tally.Decide(context.Background(), c, sdk.Call[matchesapi.TallyFacts]{Facts: f})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Decision.Deltas) != 3 || res.Decision.Deltas[0].Hero != "Hero_Pyromancer" || res.Decision.Deltas[0].TeamRating != -7000 ||
		res.Decision.Deltas[0].Bucket != matchesapi.BucketRanked {
		t.Fatalf("%+v", res.Decision)
	}
}
