package reports_test

import (
	"slices"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/reports"
)

// TestSettings: [reports] has its defaults from settings.toml, and
// Validate names the key of each problem.
func TestSettings(t *testing.T) {
	want := reports.Settings{PerDay: 20, PerReportee: 2, MaxTextRunes: 210, MaxPriority: 10}
	if got := reports.SettingsOf(config.Default()); got != want {
		t.Errorf("defaults: %+v, want %+v", got, want)
	}
	for _, tc := range []struct {
		name string
		edit func(*reports.Settings)
		want string // "" = valid
	}{
		{"disabled", func(s *reports.Settings) { s.Disabled = true }, ""},
		{"per_day 0", func(s *reports.Settings) { s.PerDay = 0 }, "reports.per_day"},
		{"per_reportee negative", func(s *reports.Settings) { s.PerReportee = -1 }, "reports.per_reportee"},
		{"text too long", func(s *reports.Settings) { s.MaxTextRunes = 5000 }, "reports.max_text_runes"},
		{"priority 0", func(s *reports.Settings) { s.MaxPriority = 0 }, "reports.max_priority"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := config.Default()
			s := reports.SettingsOf(c)
			tc.edit(&s)
			config.SetSection(c, "reports", s)
			var keys []string
			for _, p := range config.Problems(c.Validate()) {
				keys = append(keys, p.Key)
			}
			if (tc.want == "" && len(keys) != 0) || (tc.want != "" && !slices.Equal(keys, []string{tc.want})) {
				t.Errorf("problems %v, want %q", keys, tc.want)
			}
		})
	}
}
