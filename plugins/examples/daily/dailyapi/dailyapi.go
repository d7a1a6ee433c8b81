// Package dailyapi is the contract of the daily-reward area, the worked
// example of docs/adding-an-area.md: what the host and the plugin share.
//
// A player claims once a day (POST /master/daily/claim with the session
// cookie). The plugin decides whether the claim pays and how many tickets,
// keeping the player's streak of consecutive days in its per-account
// state; the host checks the decision, pays the tickets and stores the
// state in one commit.
//
// The contract is this package alone: the area's name (sdk.RegisterArea),
// its one decision (sdk.NewDecision) with the host's check of it, the
// per-account state's schema (State, Schema), and the .proto its messages travel
// and are stored as (proto/daily.proto). The SDK knows nothing of it. A
// plugin of the area, bundled or external, keeps its state in this shape,
// so the host's "daily show" reads whichever plugin kept it.
package dailyapi

import (
	"fmt"

	"github.com/honmaster/masterserver/plugins/examples/daily/dailyapi/internal/dailypb"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Area is the area's name everywhere: [plugins.daily], [areas.daily],
// "honmaster plugin daily", logs and the decision's name.
var Area = sdk.RegisterArea("daily")

// MaxTickets bounds what one claim may pay, whatever the plugin says; the
// host's [areas.daily] max_tickets may bound it further.
const MaxTickets = 1_000_000

// ClaimFacts are the facts of one claim.
type ClaimFacts struct {
	AccountID uint32
	// Day is the claim's day on the host's clock: whole days since
	// 1970-01-01 UTC. The plugin compares it with the last claimed day it
	// keeps in its state.
	Day int64
}

// ClaimDecision is the plugin's answer.
type ClaimDecision struct {
	Granted bool  // false: already claimed today; nothing is paid
	Tickets int32 // paid when Granted, 1..MaxTickets
	Streak  int32 // consecutive days claimed, this one included
}

// Claim is the area's one decision.
var Claim = sdk.NewDecision(sdk.DecisionDef[ClaimFacts, ClaimDecision]{
	Area: Area, Name: "claim", Version: 1,
	Facts: sdk.ProtoCodec(
		func(f ClaimFacts) *dailypb.ClaimFacts { return &dailypb.ClaimFacts{AccountId: f.AccountID, Day: f.Day} },
		func(m *dailypb.ClaimFacts) (ClaimFacts, error) {
			return ClaimFacts{AccountID: m.GetAccountId(), Day: m.GetDay()}, nil
		},
		func() *dailypb.ClaimFacts { return new(dailypb.ClaimFacts) }),
	Result: sdk.ProtoCodec(
		func(d ClaimDecision) *dailypb.ClaimDecision {
			return &dailypb.ClaimDecision{Granted: d.Granted, Tickets: d.Tickets, Streak: d.Streak}
		},
		func(m *dailypb.ClaimDecision) (ClaimDecision, error) {
			return ClaimDecision{Granted: m.GetGranted(), Tickets: m.GetTickets(), Streak: m.GetStreak()}, nil
		},
		func() *dailypb.ClaimDecision { return new(dailypb.ClaimDecision) }),
	CheckFacts: func(f ClaimFacts) error {
		if f.AccountID == 0 || f.Day <= 0 {
			return fmt.Errorf("%w: daily.claim: account %d, day %d", sdk.ErrInvalidFacts, f.AccountID, f.Day)
		}
		return nil
	},
	Check: func(_ ClaimFacts, d ClaimDecision) error { return d.Validate() },
})

// Validate checks a decision on its own: a granted claim pays 1..MaxTickets
// and has a streak; a refused one pays nothing.
func (d ClaimDecision) Validate() error {
	switch {
	case d.Streak < 1:
		return fmt.Errorf("%w: streak %d", sdk.ErrInvalidDecision, d.Streak)
	case d.Granted && (d.Tickets < 1 || d.Tickets > MaxTickets):
		return fmt.Errorf("%w: %d tickets, want 1..%d", sdk.ErrInvalidDecision, d.Tickets, MaxTickets)
	case !d.Granted && d.Tickets != 0:
		return fmt.Errorf("%w: a refused claim pays %d tickets", sdk.ErrInvalidDecision, d.Tickets)
	}
	return nil
}

// State is the area's per-account state, as every plugin of the area keeps
// it (Call.State in, Result.State out: the bytes of Schema.Encode).
type State struct {
	LastDay int64 // the day of the last paid claim (0: none)
	Streak  int32 // consecutive days up to LastDay
}

// Schema is the state's schema (the contract's State message): the host
// checks every state a plugin keeps against it and its commands read it.
// No bytes are the zero state. A State that cannot be (a negative day or
// streak, a streak without a day) is refused: Decode's error wraps
// sdk.ErrInvalidDecision.
var Schema = sdk.NewState(Area, sdk.StructCodec[State](func() *dailypb.State { return new(dailypb.State) }),
	func(s State) error {
		if s.LastDay < 0 || s.Streak < 0 || (s.LastDay == 0) != (s.Streak == 0) {
			return fmt.Errorf("impossible: %+v", s)
		}
		return nil
	})
