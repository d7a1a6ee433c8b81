package reports_test

import (
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/config/configtest"
	"github.com/honmaster/masterserver/host/reports"
)

// TestSettings: [reports] has its defaults from settings.toml, and
// Validate names the key of each problem.
func TestSettings(t *testing.T) {
	want := reports.Settings{PerDay: 20, PerReportee: 2, MaxTextRunes: 210, MaxPriority: 10}
	if got := reports.SettingsOf(config.Default()); got != want {
		t.Errorf("defaults: %+v, want %+v", got, want)
	}
	configtest.CheckTable(t, "reports", []configtest.Case[reports.Settings]{
		{Name: "disabled", Edit: func(s *reports.Settings) { s.Disabled = true }, Want: ""},
		{Name: "per_day 0", Edit: func(s *reports.Settings) { s.PerDay = 0 }, Want: "reports.per_day"},
		// A submission counts at most maxRecent (1000) recent reports: a
		// larger limit was accepted and never reached.
		{Name: "per_day past what is counted", Edit: func(s *reports.Settings) { s.PerDay = 1001 }, Want: "reports.per_day"},
		{Name: "per_reportee past what is counted", Edit: func(s *reports.Settings) { s.PerReportee = 1001 }, Want: "reports.per_reportee"},
		{Name: "per_day at most", Edit: func(s *reports.Settings) { s.PerDay = 1000 }, Want: ""},
		{Name: "per_reportee negative", Edit: func(s *reports.Settings) { s.PerReportee = -1 }, Want: "reports.per_reportee"},
		{Name: "text too long", Edit: func(s *reports.Settings) { s.MaxTextRunes = 5000 }, Want: "reports.max_text_runes"},
		{Name: "priority 0", Edit: func(s *reports.Settings) { s.MaxPriority = 0 }, Want: "reports.max_priority"},
	})
}
