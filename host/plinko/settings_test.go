package plinko_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/config/configtest"
	"github.com/honmaster/masterserver/host/plinko"
)

// TestSettings: [plinko] has its defaults from settings.toml, a file sets
// it as [plinko], and Validate names the key of each problem.
func TestSettings(t *testing.T) {
	if got := plinko.SettingsOf(config.Default()); got.TicketCost != 66 || got.GoldCost != 54 || !slices.Equal(got.Board, []int{5, 3, 4, 1, 6, 2}) {
		t.Errorf("defaults: %+v", got)
	}
	if got := plinko.SettingsOf(config.Default()); got.WriteBurst != 30 || got.WriteEvery.Duration != 250*time.Millisecond {
		t.Errorf("write limits' defaults: %d, %s; want 30, 250ms", got.WriteBurst, got.WriteEvery)
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
	configtest.CheckTable(t, "plinko", []configtest.Case[plinko.Settings]{
		{Name: "defaults", Edit: func(*plinko.Settings) {}, Want: ""},
		{Name: "board too short", Edit: func(s *plinko.Settings) { s.Board = []int{1, 2, 3, 4, 5} }, Want: "plinko.board"},
		{Name: "board out of range", Edit: func(s *plinko.Settings) { s.Board = []int{0, 1, 2, 3, 4, 5} }, Want: "plinko.board"},
		{Name: "no ticket cost", Edit: func(s *plinko.Settings) { s.TicketCost = 0 }, Want: "plinko.ticket_cost"},
		{Name: "negative gold cost", Edit: func(s *plinko.Settings) { s.GoldCost = -1 }, Want: "plinko.gold_cost"},
		{Name: "write limits off", Edit: func(s *plinko.Settings) { s.WriteBurst, s.WriteEvery = 0, config.Duration{} }, Want: ""},
		{Name: "negative write burst", Edit: func(s *plinko.Settings) { s.WriteBurst = -1 }, Want: "plinko.write_burst"},
		{Name: "write burst too large", Edit: func(s *plinko.Settings) { s.WriteBurst = 1_000_001 }, Want: "plinko.write_burst"},
		{Name: "no write pace", Edit: func(s *plinko.Settings) { s.WriteEvery = config.Duration{} }, Want: "plinko.write_every"},
		{Name: "write pace too slow", Edit: func(s *plinko.Settings) { s.WriteEvery = config.Duration{Duration: 2 * time.Hour} }, Want: "plinko.write_every"},
	})
}
