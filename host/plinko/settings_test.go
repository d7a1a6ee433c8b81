package plinko_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/plinko"
)

// TestSettings: [plinko] has its defaults from settings.toml, a file sets
// it as [plinko], and Validate names the key of each problem.
func TestSettings(t *testing.T) {
	if got := plinko.SettingsOf(config.Default()); got.TicketCost != 66 || got.GoldCost != 54 || !slices.Equal(got.Board, []int{5, 3, 4, 1, 6, 2}) {
		t.Errorf("defaults: %+v", got)
	}
	path := filepath.Join(t.TempDir(), "master.toml")
	if err := os.WriteFile(path, []byte("[plinko]\nboard = [1, 2, 3, 4, 5, 6]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := plinko.SettingsOf(c); !slices.Equal(got.Board, []int{1, 2, 3, 4, 5, 6}) || got.TicketCost != 66 {
		t.Errorf("loaded: %+v", got)
	}
	for _, tc := range []struct {
		name string
		edit func(*plinko.Settings)
		want string // "" = valid
	}{
		{"defaults", func(*plinko.Settings) {}, ""},
		{"board too short", func(s *plinko.Settings) { s.Board = []int{1, 2, 3, 4, 5} }, "plinko.board"},
		{"board out of range", func(s *plinko.Settings) { s.Board = []int{0, 1, 2, 3, 4, 5} }, "plinko.board"},
		{"no ticket cost", func(s *plinko.Settings) { s.TicketCost = 0 }, "plinko.ticket_cost"},
		{"negative gold cost", func(s *plinko.Settings) { s.GoldCost = -1 }, "plinko.gold_cost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := config.Default()
			s := plinko.SettingsOf(c)
			tc.edit(&s)
			config.SetSection(c, "plinko", s)
			var keys []string
			for _, p := range config.Problems(c.Validate()) {
				keys = append(keys, p.Key)
			}
			if want := []string{tc.want}; (tc.want == "" && len(keys) != 0) || (tc.want != "" && !slices.Equal(keys, want)) {
				t.Errorf("problems %v, want %q", keys, tc.want)
			}
		})
	}
}
