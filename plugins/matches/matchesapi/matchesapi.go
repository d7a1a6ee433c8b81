// Package matchesapi is the contract of the matches area: what the host
// (host/matches) and the area's plugin (plugins/matches) share.
//
// When a game server submits a match's statistics, the host resolves each
// player entry to a participant the match recorded (c_conn), and asks the
// plugin what each participant's totals gain from the match: the Tally
// decision. The facts are what the server submitted (win, loss, concede,
// disconnect, kills, deaths, assists, hero); the decision is one Delta per
// participant. The host checks the decision against the facts (Check:
// exactly one match played, a win or loss only where the facts say so,
// the submitted K/D/A, the submitted hero) and applies it through each
// participant's own actor, exactly once (host/matches).
package matchesapi

import (
	"fmt"

	"github.com/honmaster/masterserver/plugins/matches/matchesapi/internal/matchespb"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Area is the area's name everywhere: [plugins.matches], the [matches]
// settings, "honmaster plugin matches", logs and the decision's name.
var Area = sdk.RegisterArea("matches")

// Bounds of the facts: a match has at most MaxPlayers players (an effect
// holds the host account and 63 players), each count 0..MaxCount, a hero
// name at most MaxHeroName bytes.
const (
	MaxPlayers  = 63
	MaxCount    = 100_000
	MaxHeroName = 64
)

// PlayerFacts are one participant's submitted results.
type PlayerFacts struct {
	AccountID                 uint32
	Team                      int32
	Win, Loss, Concede, Disco bool
	Kills, Deaths, Assists    int32
	Hero                      string // cli name; "" when none
}

// TallyFacts are the facts of one recorded match.
type TallyFacts struct {
	MatchID uint32
	Players []PlayerFacts
}

// Delta is what one participant's totals gain.
type Delta struct {
	AccountID                               uint32
	Matches, Wins, Losses, Concedes, Discos int32
	Kills, Deaths, Assists                  int32
	Hero                                    string // its count gains one; "" none
}

// TallyDecision has one Delta per player of the facts, in their order.
type TallyDecision struct {
	Deltas []Delta
}

// Tally is the area's one decision.
var Tally = sdk.NewDecision(sdk.DecisionDef[TallyFacts, TallyDecision]{
	Area: Area, Name: "tally", Version: 1,
	Facts: sdk.ProtoCodec(factsToProto, factsFromProto, func() *matchespb.TallyFacts { return new(matchespb.TallyFacts) }),
	Result: sdk.ProtoCodec(decisionToProto, decisionFromProto,
		func() *matchespb.TallyDecision { return new(matchespb.TallyDecision) }),
	CheckFacts: CheckFacts,
	Check:      Check,
})

func factsToProto(f TallyFacts) *matchespb.TallyFacts {
	m := &matchespb.TallyFacts{MatchId: f.MatchID, Players: make([]*matchespb.PlayerFacts, len(f.Players))}
	for i, p := range f.Players {
		m.Players[i] = &matchespb.PlayerFacts{AccountId: p.AccountID, Team: p.Team, Win: p.Win, Loss: p.Loss,
			Concede: p.Concede, Disco: p.Disco, Kills: p.Kills, Deaths: p.Deaths, Assists: p.Assists, Hero: p.Hero}
	}
	return m
}

func factsFromProto(m *matchespb.TallyFacts) (TallyFacts, error) {
	f := TallyFacts{MatchID: m.GetMatchId(), Players: make([]PlayerFacts, len(m.GetPlayers()))}
	for i, p := range m.GetPlayers() {
		f.Players[i] = PlayerFacts{AccountID: p.GetAccountId(), Team: p.GetTeam(), Win: p.GetWin(), Loss: p.GetLoss(),
			Concede: p.GetConcede(), Disco: p.GetDisco(), Kills: p.GetKills(), Deaths: p.GetDeaths(), Assists: p.GetAssists(), Hero: p.GetHero()}
	}
	return f, nil
}

func decisionToProto(d TallyDecision) *matchespb.TallyDecision {
	m := &matchespb.TallyDecision{Deltas: make([]*matchespb.Delta, len(d.Deltas))}
	for i, x := range d.Deltas {
		m.Deltas[i] = &matchespb.Delta{AccountId: x.AccountID, Matches: x.Matches, Wins: x.Wins, Losses: x.Losses,
			Concedes: x.Concedes, Discos: x.Discos, Kills: x.Kills, Deaths: x.Deaths, Assists: x.Assists, Hero: x.Hero}
	}
	return m
}

func decisionFromProto(m *matchespb.TallyDecision) (TallyDecision, error) {
	d := TallyDecision{Deltas: make([]Delta, len(m.GetDeltas()))}
	for i, x := range m.GetDeltas() {
		d.Deltas[i] = Delta{AccountID: x.GetAccountId(), Matches: x.GetMatches(), Wins: x.GetWins(), Losses: x.GetLosses(),
			Concedes: x.GetConcedes(), Discos: x.GetDiscos(), Kills: x.GetKills(), Deaths: x.GetDeaths(), Assists: x.GetAssists(), Hero: x.GetHero()}
	}
	return d, nil
}

// CheckFacts refuses malformed facts: no match, no or too many players, a
// player twice or without an account, counts out of 0..MaxCount, a hero
// name too long, a player who both won and lost, winners on more than one
// team, a team that both won and lost.
func CheckFacts(f TallyFacts) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: matches.tally: %s", sdk.ErrInvalidFacts, fmt.Sprintf(format, args...))
	}
	if f.MatchID == 0 {
		return bad("no match id")
	}
	if len(f.Players) == 0 || len(f.Players) > MaxPlayers {
		return bad("%d players, want 1..%d", len(f.Players), MaxPlayers)
	}
	seen := make(map[uint32]bool, len(f.Players))
	winners := map[int32]bool{}
	for _, p := range f.Players {
		switch {
		case p.AccountID == 0:
			return bad("a player without an account")
		case seen[p.AccountID]:
			return bad("account %d twice", p.AccountID)
		case !inRange(p.Kills) || !inRange(p.Deaths) || !inRange(p.Assists):
			return bad("account %d: kills/deaths/assists %d/%d/%d out of 0..%d", p.AccountID, p.Kills, p.Deaths, p.Assists, MaxCount)
		case len(p.Hero) > MaxHeroName:
			return bad("account %d: hero name of %d bytes", p.AccountID, len(p.Hero))
		case p.Win && p.Loss:
			return bad("account %d both won and lost", p.AccountID)
		}
		seen[p.AccountID] = true
		if p.Win {
			winners[p.Team] = true
		}
	}
	if len(winners) > 1 {
		return bad("players of %d teams won", len(winners))
	}
	for _, p := range f.Players {
		if p.Loss && winners[p.Team] {
			return bad("team %d both won and lost", p.Team)
		}
	}
	return nil
}

func inRange(n int32) bool { return n >= 0 && n <= MaxCount }

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// Expected is the delta the facts of one player call for: one match
// played, a win, loss, concede or disconnect each where the facts say so,
// the submitted kills, deaths and assists, and one game of the hero.
func Expected(p PlayerFacts) Delta {
	return Delta{AccountID: p.AccountID, Matches: 1, Wins: b2i(p.Win), Losses: b2i(p.Loss), Concedes: b2i(p.Concede),
		Discos: b2i(p.Disco), Kills: p.Kills, Deaths: p.Deaths, Assists: p.Assists, Hero: p.Hero}
}

// Check is the host's check of a decision: one delta per player, in
// order, each equal to Expected of its player's facts. A plugin decides
// how a match counts only within what the facts say; it can neither
// invent a win nor count a match twice.
func Check(f TallyFacts, d TallyDecision) error {
	if len(d.Deltas) != len(f.Players) {
		return fmt.Errorf("%w: %d deltas for %d players", sdk.ErrInvalidDecision, len(d.Deltas), len(f.Players))
	}
	for i, p := range f.Players {
		if want := Expected(p); d.Deltas[i] != want {
			return fmt.Errorf("%w: account %d: delta %+v, the facts call for %+v", sdk.ErrInvalidDecision, p.AccountID, d.Deltas[i], want)
		}
	}
	return nil
}
