package plinko

import (
	_ "embed"
	"errors"
	"slices"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
)

// Settings are the [plinko] table; settings.toml holds their defaults and
// documents every key.
type Settings struct {
	TicketCost int   `toml:"ticket_cost"`
	GoldCost   int   `toml:"gold_cost"`
	Board      []int `toml:"board"` // tier of each UI slot, a permutation of 1..6
}

//go:embed settings.toml
var settingsTOML string

// SettingsOf is the [plinko] table of a configuration (its defaults when
// the file sets none).
var SettingsOf = config.RegisterTable[Settings](areaName, settingsTOML)

// Validate is run by config.Config.Validate.
func (s *Settings) Validate() error {
	var errs []error
	if s.TicketCost <= 0 {
		errs = append(errs, config.KeyProblem("ticket_cost", "must be > 0"))
	}
	if s.GoldCost <= 0 {
		errs = append(errs, config.KeyProblem("gold_cost", "must be > 0"))
	}
	tiers := make([]int, plinkoapi.NumTiers)
	for i := range tiers {
		tiers[i] = i + 1
	}
	if !slices.Equal(slices.Sorted(slices.Values(s.Board)), tiers) {
		errs = append(errs, config.KeyProblem("board", "must list each tier 1..%d exactly once (%d slots), got %v", plinkoapi.NumTiers, plinkoapi.NumTiers, s.Board))
	}
	return errors.Join(errs...)
}
