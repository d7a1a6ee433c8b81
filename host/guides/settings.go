package guides

import (
	_ "embed"
	"errors"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/plugins/guides/guidesapi"
)

// Settings are the [guides] table: reuse of the guides plugin's rankings
// (rankings.go); settings.toml holds their defaults and documents every
// key.
type Settings struct {
	RankStaleness    config.Duration `toml:"rank_staleness"`
	RankCacheEntries int             `toml:"rank_cache_entries"`
}

//go:embed settings.toml
var settingsTOML string

var tableName = string(guidesapi.Area)

// SettingsOf is the [guides] table of a configuration (its defaults when
// the file sets none).
var SettingsOf = config.RegisterTable[Settings](tableName, settingsTOML)

// Validate is run by config.Config.Validate.
func (s *Settings) Validate() error {
	var errs []error
	if s.RankStaleness.Duration < 0 {
		errs = append(errs, config.KeyProblem("rank_staleness", "must be >= 0, got %v", s.RankStaleness.Duration))
	}
	if n := s.RankCacheEntries; n < 1 || n > 10_000_000 {
		errs = append(errs, config.KeyProblem("rank_cache_entries", "must be 1..10000000, got %d", n))
	}
	return errors.Join(errs...)
}
