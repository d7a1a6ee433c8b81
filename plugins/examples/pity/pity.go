// Package pity is an example plinko plugin with a pity timer: the default
// odds, except that after N ticket results in a row the next drop is
// always a chest. N is the operator's setting "after" in
// [plugins.plinko.config] (default 20).
//
// The streak is per account and must survive plugin restarts, host
// restarts and refused decisions, so the plugin keeps it in the host-owned
// plugin state (Call.State in, Result.State out): the host stores it in the
// same commit as the drop, and only when it applies the drop. The plugin
// process itself stays stateless; only its configuration lives in memory,
// and the host hands that over again after every restart.
//
// Run it as an external plugin:
//
//	go build -o pity ./plugins/examples/pity/cmd/pity
//	honmaster serve --plugin plinko=./pity
//
// with, in the config file:
//
//	[plugins.plinko.config]
//	after = 20
package pity

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// DefaultAfter is N when the operator sets none.
const DefaultAfter = 20

// Name and Version of the plugin, as "honmaster plugins" shows them.
const (
	Name    = "pity"
	Version = "1.0.0"
)

// State is what the plugin remembers per account.
type State struct {
	Streak uint64 // ticket results in a row, up to the last applied drop
	Drops  uint64 // drops decided and applied, in all
}

// Encode returns the state bytes: two uvarints.
func (s State) Encode() []byte {
	return binary.AppendUvarint(binary.AppendUvarint(nil, s.Streak), s.Drops)
}

// DecodeState reads state bytes; empty bytes are the zero state.
func DecodeState(b []byte) (State, error) {
	var s State
	if len(b) == 0 {
		return s, nil
	}
	var n int
	if s.Streak, n = binary.Uvarint(b); n <= 0 {
		return s, fmt.Errorf("%w: pity state %x", sdk.ErrInvalidFacts, b)
	}
	if s.Drops, n = binary.Uvarint(b[n:]); n <= 0 {
		return s, fmt.Errorf("%w: pity state %x", sdk.ErrInvalidFacts, b)
	}
	return s, nil
}

// timer is the plugin: N and the two deciders.
type timer struct {
	after  atomic.Int64
	normal *plinkoapi.DefaultDecider // the default odds
	chest  *plinkoapi.DefaultDecider // chest tiers only, in the default odds' proportions
}

// Plugin returns the pity plugin.
func Plugin() *sdk.Plugin {
	t := &timer{normal: &plinkoapi.DefaultDecider{}, chest: &plinkoapi.DefaultDecider{Odds: chestOnly(plinkoapi.DefaultOdds)}}
	t.after.Store(DefaultAfter)
	p := &sdk.Plugin{Name: Name, Version: Version, Configure: t.configure}
	sdk.Handle(p, plinkoapi.Drop, t.drop)
	return p
}

// Serve serves the plugin; a plugin binary's main calls it.
func Serve() { sdk.Serve(Plugin()) }

// chestOnly keeps the chest tiers' odds, scaled to sum to 1.
func chestOnly(o plinkoapi.Odds) plinkoapi.Odds {
	var out plinkoapi.Odds
	sum := 0.0
	for t := plinkoapi.TierDiamond; t <= plinkoapi.TierBronze; t++ {
		sum += o.Of(t)
	}
	for t := plinkoapi.TierDiamond; t <= plinkoapi.TierBronze; t++ {
		out[t-1] = o.Of(t) / sum
	}
	return out
}

// Config is the plugin's [plugins.plinko.config] table, decoded strictly
// by sdk.DecodeConfig (an unknown key or a value of the wrong type is
// refused, naming its key).
type Config struct {
	// After is N: ticket results in a row before the next drop is a chest.
	After int64 `json:"after"`
}

// Validate implements sdk.ConfigValidator.
func (c *Config) Validate() []sdk.ConfigProblem {
	if c.After < 1 || c.After > 1e6 {
		return []sdk.ConfigProblem{{Key: "after", Message: fmt.Sprintf("must be a whole number of drops from 1 to 1000000, got %d", c.After)}}
	}
	return nil
}

func (t *timer) configure(ctx context.Context, area sdk.Area, cfg map[string]any) []sdk.ConfigProblem {
	return sdk.ConfigureWith(Config{After: DefaultAfter}, func(c Config) { t.after.Store(c.After) })(ctx, area, cfg)
}

func (t *timer) drop(ctx context.Context, c sdk.Call[plinkoapi.DropFacts]) (sdk.Result[plinkoapi.DropDecision], error) {
	st, err := DecodeState(c.State)
	if err != nil {
		return sdk.Result[plinkoapi.DropDecision]{}, err
	}
	decider := t.normal
	if st.Streak >= uint64(t.after.Load()) {
		decider = t.chest // pity: this drop is a chest
	}
	d, err := decider.Drop(ctx, c.Facts)
	if err != nil {
		return sdk.Result[plinkoapi.DropDecision]{}, err
	}
	if d.Tier.IsChest() {
		st.Streak = 0
	} else {
		st.Streak++
	}
	st.Drops++
	return sdk.Result[plinkoapi.DropDecision]{Decision: d, State: st.Encode()}, nil
}
