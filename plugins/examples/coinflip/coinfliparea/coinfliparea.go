// Package coinfliparea is the host side of the coin-flip area (contract:
// package coinflipapi; bundled plugin: package coinflipplugin). Importing
// it registers the area, so a server binary serves it with one import
// line (host/cli/builtin.go has it):
//
//	import _ "github.com/honmaster/masterserver/plugins/examples/coinflip/coinfliparea"
//
// It registers:
//   - the area (host/area): its bundled plugin, its routes
//     POST /master/coinflip/flip and POST /master/coinflip/gift, its
//     operator command "coinflip show" and its metric
//     honmaster_coinflip_flips_total{outcome};
//     "coinflip show" prints the account's state (area.StateCommand);
//   - its settings, [areas.coinflip] (config.RegisterSection);
//   - the gift, an effect on two accounts (actors.RegisterEffect, gift.go);
//   - its load-test operation "coinflip" (loadtest.go).
//
// The plugin's settings are [plugins.coinflip.config] (see coinflipplugin).
package coinfliparea

import (
	"context"
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/examples/coinflip/coinflipapi"
	"github.com/honmaster/masterserver/plugins/examples/coinflip/coinflipplugin"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// The area's routes.
const (
	PathFlip = "/master/coinflip/flip"
	PathGift = "/master/coinflip/gift"
)

// name is the area's name, the contract's.
var name = string(coinflipapi.Area)

// Settings are the [areas.coinflip] table.
type Settings struct {
	MaxStake int32 `toml:"max_stake"` // the most one flip may wager
	MaxGift  int32 `toml:"max_gift"`  // the most one gift may give
}

// DefaultSettings are [areas.coinflip] when the file sets none.
var DefaultSettings = Settings{MaxStake: 100, MaxGift: 1000}

// Validate is run by config.Config.Validate.
func (s *Settings) Validate() error {
	if s.MaxStake < 1 || s.MaxStake > coinflipapi.MaxStake || s.MaxGift < 1 || s.MaxGift > coinflipapi.MaxStake {
		return fmt.Errorf("max_stake and max_gift must be 1..%d, got %d and %d", coinflipapi.MaxStake, s.MaxStake, s.MaxGift)
	}
	return nil
}

func init() {
	config.RegisterSection(name, DefaultSettings)
	area.Register(area.Module{Area: coinflipapi.Area, Bundled: coinflipplugin.Plugin, Start: start,
		Commands: []area.Command{area.StateCommand(coinflipapi.Schema, "the account's flips, wins and streaks", nil)}})
}

type handler struct {
	area.Env
	settings Settings
}

func start(e area.Env) (*area.Live, error) {
	s, _ := config.Section[Settings](e.Config, name)
	flips, err := e.CounterVec("coinflip_flips_total", "Coin flips decided, by outcome: won or lost.", "outcome", "won", "lost")
	if err != nil {
		return nil, err
	}
	h := &handler{Env: e, settings: s}
	rs := replies.For(e)
	const failure = " Failure: `success` false and `error`, a sentence."
	return &area.Live{Routes: []server.Route{
		area.NewRoute(rs, area.Route[flipRequest, flipReply]{Path: PathFlip, Change: h.flip, Doc: server.Doc{
			Summary: "Wagers tickets on a coin flip (an example area, see docs/adding-an-area.md).",
			Reply:   "Success: `success` true; `won` says whether the stake was paid or taken; `user_tickets` is the balance after." + failure},
			Done: func(_ flipRequest, r flipReply) {
				flips.WithLabelValues(map[bool]string{true: "won", false: "lost"}[r.Won]).Inc()
			}}),
		area.NewRoute(rs, area.Route[giftRequest, giftReply]{Path: PathGift, Account: h.gift, Doc: server.Doc{
			Summary: "Gives tickets to another player: the sender's debit and the receiver's credit both happen or neither does.",
			Reply:   "Success: `success` true and the tickets given." + failure}}),
	}}, nil
}

// The area's own refusals, and its table of causes: each refusal's
// sentence, then the causes every area shares (area.StandardCauses). The
// host writes the failure replies, logs them and counts their outcome.
var (
	errStake            = errors.New("the stake is out of bounds")
	errNotEnoughTickets = errors.New("not enough tickets")
	errGiftSize         = errors.New("the gift is out of bounds")
	errNoReceiver       = errors.New("no such receiver")
	errGiftToSelf       = errors.New("a gift to oneself")

	replies = area.NewReplies(name, nil, area.StandardCauses(
		area.Row{Err: errStake, Answer: area.Answer{Error: "that stake is not allowed: at least 1 ticket, and no more than the server's limit"}},
		area.Row{Err: errNotEnoughTickets, Answer: area.Answer{Error: "you do not have enough tickets"}},
		area.Row{Err: errGiftSize, Answer: area.Answer{Error: "that gift is not allowed: at least 1 ticket, and no more than the server's limit"}},
		area.Row{Err: errNoReceiver, Answer: area.Answer{Error: "there is no player with that name"}},
		area.Row{Err: errGiftToSelf, Answer: area.Answer{Error: "a gift goes to another player"}},
	))
)

// flipRequest is the form besides the session's cookie (which the host
// reads: the route is a Change).
type flipRequest struct {
	Stake int32 `form:"stake,required" doc:"tickets wagered, 1..[areas.coinflip] max_stake"`
}

type flipReply struct {
	Success     bool  `php:"success"`
	Won         bool  `php:"won"`
	Stake       int32 `php:"stake"`
	Streak      int32 `php:"streak"`       // wins in a row
	UserTickets int64 `php:"user_tickets"` // the balance after the flip
}

// flip is one flip inside the account's actor: the host refuses a stake
// out of bounds or above the balance, the plugin decides on the facts and
// its state, and the host moves the stake and stores the new state in one
// commit, or refuses the decision and stores nothing.
func (h *handler) flip(ctx context.Context, tx *actors.Tx, req flipRequest) (flipReply, error) {
	stake, balance := req.Stake, tx.View().Tickets
	switch {
	case stake < 1 || stake > h.settings.MaxStake:
		return flipReply{}, fmt.Errorf("%w: %d tickets, [areas.coinflip] max_stake is %d", errStake, stake, h.settings.MaxStake)
	case balance < int64(stake):
		return flipReply{}, errNotEnoughTickets
	}
	d, next, err := area.Decide(ctx, tx, h.Plugin, coinflipapi.Flip, coinflipapi.Schema, coinflipapi.FlipFacts{AccountID: uint32(tx.ID()), Stake: stake})
	if err != nil {
		return flipReply{}, err
	}
	if next.Streak != d.Streak { // the streak it reports is the one it keeps
		return flipReply{}, fmt.Errorf("%w: a streak of %d decided, %d kept", sdk.ErrInvalidDecision, d.Streak, next.Streak)
	}
	acct := tx.Account()
	if d.Won {
		acct.Tickets += int64(stake)
	} else {
		acct.Tickets -= int64(stake)
	}
	return flipReply{Success: true, Won: d.Won, Stake: stake, Streak: d.Streak, UserTickets: acct.Tickets}, nil
}
