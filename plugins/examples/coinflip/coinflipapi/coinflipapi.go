// Package coinflipapi is the contract of the coin-flip area, the second
// worked example of docs/adding-an-area.md: what the host and any plugin
// of the area share.
//
// A player wagers tickets on a coin flip (POST /master/coinflip/flip with
// the session cookie and a stake). The plugin decides whether the flip
// wins, with odds of its own configuration, and keeps the player's streak
// of wins in its per-account state; the host checks the decision, moves
// the stake (won: paid, lost: taken) and stores the state in one commit.
//
// The contract is this package alone: the area's name, its one decision
// with the host's check of it, and the per-account state's schema (State,
// a message of proto/coinflip.proto): a plugin keeps its state in that
// shape, whichever program it is, and the host's commands read it.
package coinflipapi

import (
	"fmt"

	"github.com/honmaster/masterserver/plugins/examples/coinflip/coinflipapi/internal/coinflippb"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Area is the area's name everywhere: [plugins.coinflip],
// [areas.coinflip], "honmaster plugin coinflip", logs.
var Area = sdk.RegisterArea("coinflip")

// MaxStake bounds one flip's stake whatever the settings say.
const MaxStake = 1_000_000

// FlipFacts are the facts of one flip.
type FlipFacts struct {
	AccountID uint32
	Stake     int32 // tickets wagered, 1..MaxStake: won, they are paid; lost, taken
}

// FlipDecision is the plugin's answer.
type FlipDecision struct {
	Won    bool
	Streak int32 // wins in a row after this flip: 0 when it lost
}

// State is the area's per-account state, as every plugin of the area keeps
// it (Call.State in, Result.State out, the bytes of Schema.Encode).
type State struct {
	Streak     int32 // wins in a row, up to the last flip
	BestStreak int32
	Flips      int64
	Wins       int64
}

// Flip is the area's one decision.
var Flip = sdk.NewDecision(sdk.DecisionDef[FlipFacts, FlipDecision]{
	Area: Area, Name: "flip", Version: 1,
	// The Go types mirror their messages field for field: no converters.
	Facts:  sdk.StructCodec[FlipFacts](func() *coinflippb.FlipFacts { return new(coinflippb.FlipFacts) }),
	Result: sdk.StructCodec[FlipDecision](func() *coinflippb.FlipDecision { return new(coinflippb.FlipDecision) }),
	CheckFacts: func(f FlipFacts) error {
		if f.AccountID == 0 || f.Stake < 1 || f.Stake > MaxStake {
			return fmt.Errorf("%w: coinflip.flip: account %d, stake %d", sdk.ErrInvalidFacts, f.AccountID, f.Stake)
		}
		return nil
	},
	Check: func(_ FlipFacts, d FlipDecision) error { return d.Validate() },
})

// Validate checks a decision on its own: a won flip has a streak, a lost
// one ends it.
func (d FlipDecision) Validate() error {
	if (d.Won && d.Streak < 1) || (!d.Won && d.Streak != 0) {
		return fmt.Errorf("%w: won %v with a streak of %d", sdk.ErrInvalidDecision, d.Won, d.Streak)
	}
	return nil
}

// Schema is the state's schema (the contract's State message): the host
// checks every state a plugin keeps against it and its commands read it.
// No bytes are the zero state. A State that cannot be (a negative count,
// a streak above the best or more wins than flips) is refused: Decode's
// error wraps sdk.ErrInvalidDecision.
var Schema = sdk.NewState(Area, sdk.StructCodec[State](func() *coinflippb.State { return new(coinflippb.State) }),
	func(s State) error {
		if s.Streak < 0 || s.Streak > s.BestStreak || s.Wins < 0 || s.Wins > s.Flips || int64(s.BestStreak) > s.Wins {
			return fmt.Errorf("impossible: %+v", s)
		}
		return nil
	})

// Next is the state after a flip: what any plugin of the area keeps (the
// streak it reports is Next's).
func (s State) Next(won bool) State {
	s.Flips++
	if won {
		s.Wins++
		s.Streak++
		s.BestStreak = max(s.BestStreak, s.Streak)
	} else {
		s.Streak = 0
	}
	return s
}
