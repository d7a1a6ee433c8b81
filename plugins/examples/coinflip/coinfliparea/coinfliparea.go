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
//   - its settings, [areas.coinflip] (config.RegisterSection);
//   - the gift, an effect on two accounts (actors.RegisterEffect, gift.go);
//   - its load-test operation "coinflip" (loadtest.go).
//
// The plugin's settings are [plugins.coinflip.config] (see coinflipplugin).
package coinfliparea

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/area"
	hostmetrics "github.com/honmaster/masterserver/host/metrics"
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
	area.Register(area.Module{Area: coinflipapi.Area, Bundled: coinflipplugin.Plugin, Start: start, Commands: commands})
}

type handler struct {
	area.Env
	settings Settings
	flips    *prometheus.CounterVec // by outcome: won, lost
}

func start(e area.Env) (*area.Live, error) {
	s, _ := config.Section[Settings](e.Config, name)
	flips, err := hostmetrics.Register(e.Metrics, prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: hostmetrics.Namespace,
		Name: "coinflip_flips_total", Help: "Coin flips decided, by outcome: won or lost."}, []string{"outcome"}))
	if err != nil {
		return nil, err
	}
	flips.WithLabelValues("won")
	flips.WithLabelValues("lost")
	h := &handler{Env: e, settings: s, flips: flips}
	rs := replies.WithLog(e.Log)
	const failure = " Failure: `success` false and `error`, a sentence."
	return &area.Live{Routes: []server.Route{
		area.NewRoute(rs, area.Route[flipRequest, flipReply]{Path: PathFlip, Serve: h.flip, Doc: server.Doc{
			Summary: "Wagers tickets on a coin flip (an example area, see docs/adding-an-area.md).",
			Form:    flipRequest{}, ReplyValue: flipReply{},
			Reply: "Success: `success` true; `won` says whether the stake was paid or taken; `user_tickets` is the balance after." + failure}}),
		area.NewRoute(rs, area.Route[giftRequest, giftReply]{Path: PathGift, Serve: h.gift, Doc: server.Doc{
			Summary: "Gives tickets to another player: the sender's debit and the receiver's credit both happen or neither does.",
			Form:    giftRequest{}, ReplyValue: giftReply{},
			Reply: "Success: `success` true and the tickets given." + failure}}),
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

type flipRequest struct {
	Cookie string `form:"cookie,required" doc:"session cookie from the login"`
	Stake  int32  `form:"stake,required" doc:"tickets wagered, 1..[areas.coinflip] max_stake"`
}

type flipReply struct {
	Success     bool  `php:"success"`
	Won         bool  `php:"won"`
	Stake       int32 `php:"stake"`
	Streak      int32 `php:"streak"`       // wins in a row
	UserTickets int64 `php:"user_tickets"` // the balance after the flip
}

func (h *handler) flip(ctx context.Context, req flipRequest) (flipReply, error) {
	sess, err := h.Login.Authenticate(req.Cookie)
	if err != nil {
		return flipReply{}, err
	}
	rep, err := actors.Apply(ctx, h.Sys, sess.AccountID, flipChange(ctx, h.Plugin, req.Stake, h.settings.MaxStake))
	if err == nil {
		h.flips.WithLabelValues(map[bool]string{true: "won", false: "lost"}[rep.Won]).Inc()
	}
	return rep, err
}

// flipChange is one flip inside the account's actor: the host refuses a
// stake out of bounds or above the balance, the plugin decides on the
// facts and its state, and the host moves the stake and stores the new
// state in one commit, or refuses the decision and stores nothing.
func flipChange(ctx context.Context, plugin sdk.Caller, stake, max int32) actors.ChangeFunc[flipReply] {
	return func(tx *actors.Tx) (flipReply, error) {
		a := tx.View()
		switch {
		case stake < 1 || stake > max:
			return flipReply{}, fmt.Errorf("%w: %d tickets, [areas.coinflip] max_stake is %d", errStake, stake, max)
		case a.Tickets < int64(stake):
			return flipReply{}, errNotEnoughTickets
		}
		state, err := tx.PluginState(name)
		if err != nil {
			return flipReply{}, err
		}
		out, err := coinflipapi.Flip.Decide(ctx, plugin, sdk.Call[coinflipapi.FlipFacts]{
			Facts: coinflipapi.FlipFacts{AccountID: uint32(tx.ID()), Stake: stake}, State: state})
		if err != nil {
			return flipReply{}, err
		}
		// The state's schema is the contract's: a plugin keeping another
		// shape, or a streak its decision does not report, is refused.
		next, err := coinflipapi.DecodeState(out.State)
		if err != nil {
			return flipReply{}, err
		}
		if next.Streak != out.Decision.Streak {
			return flipReply{}, fmt.Errorf("%w: a streak of %d decided, %d kept", sdk.ErrInvalidDecision, out.Decision.Streak, next.Streak)
		}
		if err := ctx.Err(); err != nil { // the asker has gone: a commit now would hide a write behind an error reply
			return flipReply{}, fmt.Errorf("%w: %w", sdk.ErrUnavailable, err)
		}
		acct := tx.Account()
		if out.Decision.Won {
			acct.Tickets += int64(stake)
		} else {
			acct.Tickets -= int64(stake)
		}
		if !bytes.Equal(out.State, state) {
			tx.SetPluginState(name, out.State)
		}
		return flipReply{Success: true, Won: out.Decision.Won, Stake: stake, Streak: out.Decision.Streak, UserTickets: acct.Tickets}, nil
	}
}
