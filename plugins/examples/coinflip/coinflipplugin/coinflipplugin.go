// Package coinflipplugin is the bundled plugin of the coin-flip area
// (package coinflipapi): a flip wins with the configured odds. Its
// settings are [plugins.coinflip.config]:
//
//	[plugins.coinflip.config]
//	odds = 0.5   # the chance that a flip wins, 0..1
//
// The plugin is stateless: the streak lives in the host-owned per-account
// state (coinflipapi.State), which the host stores in the same commit as
// the tickets the flip moves.
package coinflipplugin

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/honmaster/masterserver/plugins/examples/coinflip/coinflipapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Config is [plugins.coinflip.config], decoded strictly by sdk.DecodeConfig.
type Config struct {
	Odds float64 `json:"odds"`
}

// DefaultConfig is the configuration when the operator sets none.
var DefaultConfig = Config{Odds: 0.5}

// Validate implements sdk.ConfigValidator.
func (c *Config) Validate() []sdk.ConfigProblem {
	if !(c.Odds >= 0 && c.Odds <= 1) {
		return []sdk.ConfigProblem{{Key: "odds", Message: fmt.Sprintf("must be 0..1 (the chance that a flip wins), got %v", c.Odds)}}
	}
	return nil
}

// Plugin returns the plugin.
func Plugin() *sdk.Plugin {
	cfg := sdk.NewConfigured(DefaultConfig)
	p := &sdk.Plugin{Name: "coinflip", Version: "1.0.0", Configure: cfg.Configure} // as "honmaster plugins" shows it
	sdk.HandleState(p, coinflipapi.Flip, coinflipapi.Schema, func(_ context.Context, _ coinflipapi.FlipFacts, st coinflipapi.State) (coinflipapi.FlipDecision, coinflipapi.State, error) {
		d, next := Decide(cfg.Get(), st, rand.Float64())
		return d, next, nil
	})
	return p
}

// Decide is the plugin's rule, apart from the transport and the dice
// (tests call it): roll is uniform in [0, 1).
func Decide(cfg Config, st coinflipapi.State, roll float64) (coinflipapi.FlipDecision, coinflipapi.State) {
	st = st.Next(roll < cfg.Odds)
	return coinflipapi.FlipDecision{Won: st.Streak > 0, Streak: st.Streak}, st
}
