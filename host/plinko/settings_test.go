package plinko_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

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
	})
}
