package plinko

import (
	_ "embed"
	"errors"
	"slices"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
)

// Settings are the [plinko] table; settings.toml holds their defaults and
// documents every key.
type Settings struct {
	TicketCost int   `toml:"ticket_cost"`
	GoldCost   int   `toml:"gold_cost"`
	Board      []int `toml:"board"` // tier of each UI slot, a permutation of 1..6
	// Drops and exchange purchases one account may make (write_burst at
	// once, one more every write_every); one address ten times as many,
	// ten times as fast. WriteBurst 0 turns both off.
	WriteBurst int             `toml:"write_burst"`
	WriteEvery config.Duration `toml:"write_every"`
}

// AddressFactor is how many times an account's write budget one client
// address (IPv6: its network of limits.ipv6_prefix bits) gets over all
// its accounts: both its burst and its pace.
const AddressFactor = 10

// maxWriteBurst bounds write_burst (and so the address's, ten times it).
const maxWriteBurst = 1_000_000

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
	if s.WriteBurst < 0 || s.WriteBurst > maxWriteBurst {
		errs = append(errs, config.KeyProblem("write_burst", "must be 0 (off)..%d, got %d", maxWriteBurst, s.WriteBurst))
	}
	if d := s.WriteEvery.Duration; s.WriteBurst > 0 && (d < time.Millisecond || d > time.Hour) {
		errs = append(errs, config.KeyProblem("write_every", "must be 1ms..1h, got %s", s.WriteEvery))
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
