// Package dailyplugin is the bundled plugin of the daily-reward area
// (package dailyapi): a claim pays base tickets, plus step more for each
// consecutive day before it, up to max_streak days; a second claim on one
// day (or on an earlier one, should the host's clock go back) pays
// nothing. Its settings are [plugins.daily.config]:
//
//	[plugins.daily.config]
//	base = 10        # tickets on the first day of a streak
//	step = 5         # more per consecutive day
//	max_streak = 7   # the streak day from which the reward stops growing
//
// The plugin is stateless: the streak lives in the host-owned per-account
// plugin state (Call.State in, Result.State out), in the contract's shape
// (dailyapi.State, dailyapi.Schema), which the host stores in the same
// commit as the tickets it pays (a claim refused for today keeps the
// state as it was, and nothing is written).
package dailyplugin

import (
	"context"
	"fmt"

	"github.com/honmaster/masterserver/plugins/examples/daily/dailyapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Name and Version, as "honmaster plugins" shows them.
const (
	Name    = "daily"
	Version = "1.0.0"
)

// Config is [plugins.daily.config], decoded strictly by sdk.DecodeConfig.
type Config struct {
	Base      int32 `json:"base"`
	Step      int32 `json:"step"`
	MaxStreak int32 `json:"max_streak"`
}

// DefaultConfig is the configuration when the operator sets none.
var DefaultConfig = Config{Base: 10, Step: 5, MaxStreak: 7}

// Validate implements sdk.ConfigValidator.
func (c *Config) Validate() []sdk.ConfigProblem {
	var ps []sdk.ConfigProblem
	if c.Base < 1 || c.Base > 10_000 {
		ps = append(ps, sdk.ConfigProblem{Key: "base", Message: fmt.Sprintf("must be 1..10000 tickets, got %d", c.Base)})
	}
	if c.Step < 0 || c.Step > 10_000 {
		ps = append(ps, sdk.ConfigProblem{Key: "step", Message: fmt.Sprintf("must be 0..10000 tickets, got %d", c.Step)})
	}
	if c.MaxStreak < 1 || c.MaxStreak > 365 {
		ps = append(ps, sdk.ConfigProblem{Key: "max_streak", Message: fmt.Sprintf("must be 1..365 days, got %d", c.MaxStreak)})
	}
	return ps
}

// Reward is what a claim on the given day of a streak (1: its first) pays.
func (c Config) Reward(streak int32) int32 {
	return c.Base + c.Step*(min(streak, c.MaxStreak)-1)
}

// Plugin returns the plugin.
func Plugin() *sdk.Plugin {
	cfg := sdk.NewConfigured(DefaultConfig)
	p := &sdk.Plugin{Name: Name, Version: Version, Configure: cfg.Configure}
	sdk.HandleState(p, dailyapi.Claim, dailyapi.Schema, func(_ context.Context, f dailyapi.ClaimFacts, st dailyapi.State) (dailyapi.ClaimDecision, dailyapi.State, error) {
		d, next := Decide(cfg.Get(), st, f.Day)
		return d, next, nil
	})
	return p
}

// Decide is the plugin's rule, apart from the transport (tests call it).
func Decide(cfg Config, st dailyapi.State, day int64) (dailyapi.ClaimDecision, dailyapi.State) {
	switch {
	case day <= st.LastDay: // claimed today (or the host's clock went back)
		return dailyapi.ClaimDecision{Granted: false, Streak: st.Streak}, st
	case st.LastDay == day-1:
		st.Streak++
	default: // the first claim, or a day was missed
		st.Streak = 1
	}
	st.LastDay = day
	return dailyapi.ClaimDecision{Granted: true, Tickets: cfg.Reward(st.Streak), Streak: st.Streak}, st
}
