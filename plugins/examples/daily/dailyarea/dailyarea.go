// Package dailyarea is the host side of the daily-reward area (contract:
// package dailyapi; bundled plugin: package dailyplugin). Importing it
// registers the area, so a server binary serves it with one import line:
//
//	import _ "github.com/honmaster/masterserver/plugins/examples/daily/dailyarea"
//
// It registers:
//   - the area (host/area): its bundled plugin and its one route,
//     POST /master/daily/claim;
//   - its settings, [areas.daily] (config.RegisterSection): max_tickets,
//     the most one claim may pay whatever the plugin decides.
//
// The plugin's settings are [plugins.daily.config] (see dailyplugin).
package dailyarea

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/examples/daily/dailyapi"
	"github.com/honmaster/masterserver/plugins/examples/daily/dailyplugin"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// PathClaim is the area's one route.
const PathClaim = "/master/daily/claim"

// name is the area's name, the contract's.
var name = string(dailyapi.Area)

// Settings are the [areas.daily] table.
type Settings struct {
	// MaxTickets is the most one claim pays: a decision paying more is
	// refused (the plugin's setting is the operator's too, but a plugin
	// is another program: the host checks what it is given).
	MaxTickets int32 `toml:"max_tickets"`
}

// DefaultSettings are [areas.daily] when the file sets none.
var DefaultSettings = Settings{MaxTickets: 100}

// Validate is run by config.Config.Validate.
func (s *Settings) Validate() error {
	if s.MaxTickets < 1 || s.MaxTickets > dailyapi.MaxTickets {
		return fmt.Errorf("max_tickets must be 1..%d, got %d", dailyapi.MaxTickets, s.MaxTickets)
	}
	return nil
}

func init() {
	config.RegisterSection(name, DefaultSettings)
	area.Register(area.Module{Area: dailyapi.Area, Bundled: dailyplugin.Plugin, Start: start, Commands: commands})
}

// dayShift moves the host's clock by whole days (tests only: a streak
// needs consecutive days).
var dayShift atomic.Int64

// today is the claim's day: whole days since 1970-01-01 UTC.
func today() int64 { return time.Now().Unix()/86400 + dayShift.Load() }

type handler struct {
	sys      *actors.System
	login    *login.Service
	plugin   sdk.Caller
	settings Settings
}

func start(e area.Env) (*area.Live, error) {
	s, ok := config.Section[Settings](e.Config, name)
	if !ok {
		return nil, errors.New("no [areas.daily] settings")
	}
	h := &handler{sys: e.Sys, login: e.Login, plugin: e.Plugin, settings: s}
	// The area has no status codes or refusals of its own: a failure
	// answers the shared cause's sentence (area.StandardCauses) in the
	// default failure reply, a:2:{s:7:"success";b:0;s:5:"error";...}.
	replies := area.NewReplies(name, e.Log, area.StandardCauses())
	return &area.Live{Routes: []server.Route{area.NewRoute(replies, area.Route[claimRequest, claimReply]{
		Path: PathClaim, Serve: h.claim,
		Doc: server.Doc{ // its form and reply: claimRequest's and claimReply's tags
			Summary: "Claims today's daily reward (an example area, see docs/adding-an-area.md).",
			Reply:   "Success: `success` true; `granted` false when today's reward was claimed already. Failure: `success` false and `error`, a sentence.",
		}})}}, nil
}

type claimRequest struct {
	Cookie string `form:"cookie" doc:"session cookie from the login"`
}

type claimReply struct {
	Success     bool  `php:"success"`
	Granted     bool  `php:"granted"`
	Tickets     int32 `php:"tickets"` // paid by this claim
	Streak      int32 `php:"streak"`
	UserTickets int64 `php:"user_tickets"` // the balance after it
}

func (h *handler) claim(ctx context.Context, req claimRequest) (claimReply, error) {
	sess, err := h.login.Authenticate(req.Cookie)
	if err != nil {
		return claimReply{}, err
	}
	c := &claimChange{ctx: ctx, plugin: h.plugin, day: today(), max: h.settings.MaxTickets}
	out, err := actors.Apply(ctx, h.sys, sess.AccountID, c.apply)
	if err != nil {
		return claimReply{}, err
	}
	return claimReply{Success: true, Granted: out.Granted, Tickets: out.Tickets, Streak: out.Streak, UserTickets: out.balance}, nil
}

// claimChange is one claim inside the account's actor: the plugin decides
// on the facts and its state for the account (area.Decide: the state is
// the contract's, stored with the change), the host checks the decision
// against max_tickets, then pays it in one commit, or refuses it and
// stores nothing.
type claimChange struct {
	ctx    context.Context
	plugin sdk.Caller
	day    int64
	max    int32
}

type claimResult struct {
	dailyapi.ClaimDecision
	balance int64
}

var _ actors.ChangeFunc[*claimResult] = (*claimChange)(nil).apply

func (c *claimChange) apply(tx *actors.Tx) (*claimResult, error) {
	d, _, err := area.Decide(c.ctx, tx, c.plugin, dailyapi.Claim, dailyapi.Schema, dailyapi.ClaimFacts{AccountID: uint32(tx.ID()), Day: c.day})
	if err != nil {
		return nil, err
	}
	if d.Tickets > c.max {
		return nil, fmt.Errorf("%w: %d tickets, [areas.daily] max_tickets is %d", sdk.ErrInvalidDecision, d.Tickets, c.max)
	}
	if !d.Granted {
		return &claimResult{ClaimDecision: d, balance: tx.View().Tickets}, nil
	}
	a := tx.Account()
	a.Tickets += int64(d.Tickets)
	return &claimResult{ClaimDecision: d, balance: a.Tickets}, nil
}
