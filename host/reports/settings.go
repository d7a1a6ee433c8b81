package reports

import (
	_ "embed"
	"errors"

	"github.com/honmaster/masterserver/config"
)

// Settings are the [reports] table: player reports and their limits;
// settings.toml holds their defaults and documents every key.
type Settings struct {
	Disabled     bool `toml:"disabled"`
	PerDay       int  `toml:"per_day"`
	PerReportee  int  `toml:"per_reportee"`
	MaxTextRunes int  `toml:"max_text_runes"`
	MaxPriority  int  `toml:"max_priority"`
}

//go:embed settings.toml
var settingsTOML string

// SettingsOf is the [reports] table of a configuration (its defaults when
// the file sets none).
var SettingsOf = config.RegisterTable[Settings](areaName, settingsTOML)

// Validate is run by config.Config.Validate.
func (s *Settings) Validate() error {
	var errs []error
	for _, f := range []struct {
		key   string
		v, hi int
	}{{"per_day", s.PerDay, maxRecent}, {"per_reportee", s.PerReportee, maxRecent}, // a submission counts no more
		{"max_text_runes", s.MaxTextRunes, 1000}, {"max_priority", s.MaxPriority, 1000}} {
		if f.v < 1 || f.v > f.hi {
			errs = append(errs, config.KeyProblem(f.key, "must be 1..%d, got %d", f.hi, f.v))
		}
	}
	return errors.Join(errs...)
}
