package guides_test

import (
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/config/configtest"
	"github.com/honmaster/masterserver/host/guides"
)

// TestSettings: [guides] has its defaults from settings.toml, and
// Validate names the key of each problem.
func TestSettings(t *testing.T) {
	want := guides.Settings{RankStaleness: config.Duration{Duration: time.Second}, RankCacheEntries: 10000}
	if got := guides.SettingsOf(config.Default()); got != want {
		t.Errorf("defaults: %+v, want %+v", got, want)
	}
	configtest.CheckTable(t, "guides", []configtest.Case[guides.Settings]{
		{Name: "rank staleness 0", Edit: func(s *guides.Settings) { s.RankStaleness = config.Duration{} }, Want: ""},
		{Name: "rank staleness negative", Edit: func(s *guides.Settings) { s.RankStaleness = config.Duration{Duration: -time.Second} }, Want: "guides.rank_staleness"},
		{Name: "no rank cache", Edit: func(s *guides.Settings) { s.RankCacheEntries = 0 }, Want: "guides.rank_cache_entries"},
	})
}
