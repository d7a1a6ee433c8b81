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
		{AccountID: 1, Team: 1, Win: true, Kills: 5, Deaths: 1, Assists: 9, Hero: "Hero_Pyromancer"},
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
		{AccountID: 1, Matches: 1, Wins: 1, Kills: 5, Deaths: 1, Assists: 9, Hero: "Hero_Pyromancer"},
		{AccountID: 2, Matches: 1, Losses: 1, Concedes: 1, Deaths: 5, Hero: "Hero_Chronos"},
		{AccountID: 3, Matches: 1, Losses: 1, Discos: 1},
	}
	for i := range want {
		if d.Deltas[i] != want[i] {
			t.Errorf("delta %d = %+v, want %+v", i, d.Deltas[i], want[i])
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
	res, err := matchesapi.Tally.Decide(context.Background(), c, sdk.Call[matchesapi.TallyFacts]{Facts: facts()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Decision.Deltas) != 3 || res.Decision.Deltas[0].Hero != "Hero_Pyromancer" {
		t.Fatalf("%+v", res.Decision)
	}
}
