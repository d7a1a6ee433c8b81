package guides_test

import (
	"slices"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/guides"
)

// TestSettings: [guides] has its defaults from settings.toml, and
// Validate names the key of each problem.
func TestSettings(t *testing.T) {
	want := guides.Settings{RankStaleness: config.Duration{Duration: time.Second}, RankCacheEntries: 10000}
	if got := guides.SettingsOf(config.Default()); got != want {
		t.Errorf("defaults: %+v, want %+v", got, want)
	}
	for _, tc := range []struct {
		name string
		edit func(*guides.Settings)
		want string // "" = valid
	}{
		{"rank staleness 0", func(s *guides.Settings) { s.RankStaleness = config.Duration{} }, ""},
		{"rank staleness negative", func(s *guides.Settings) { s.RankStaleness = config.Duration{Duration: -time.Second} }, "guides.rank_staleness"},
		{"no rank cache", func(s *guides.Settings) { s.RankCacheEntries = 0 }, "guides.rank_cache_entries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := config.Default()
			s := guides.SettingsOf(c)
			tc.edit(&s)
			config.SetSection(c, "guides", s)
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
