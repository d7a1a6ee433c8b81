package login

import (
	"testing"

	"github.com/honmaster/masterserver/wire"
)

// statsKeys is the wire order of the 32 keys of infos[0] as the original
// service sent them (protocol-notes §1).
var statsKeys = []string{
	"account_id", "standing", "level", "level_exp", "discos", "possible_discos", "games_played",
	"num_bot_games_won", "acc_pub_skill", "acc_wins", "acc_losses", "acc_games_played", "acc_discos",
	"rnk_amm_team_rating", "rnk_wins", "rnk_losses", "rnk_games_played", "rnk_discos",
	"cs_amm_team_rating", "cs_wins", "cs_losses", "cs_games_played", "cs_discos", "mid_games_played",
	"mid_discos", "rift_games_played", "rift_discos", "is_new", "cam_games_played", "cam_discos",
	"cam_cs_games_played", "cam_cs_discos",
}

func TestStatsInfoWireOrder(t *testing.T) {
	b, err := wire.Marshal(StatsInfo{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := wire.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	keys := v.(*wire.Array).Keys()
	if len(keys) != len(statsKeys) {
		t.Fatalf("infos[0] has %d keys, want %d", len(keys), len(statsKeys))
	}
	for i, want := range statsKeys {
		if keys[i] != want {
			t.Errorf("key %d is %v, want %s", i, keys[i], want)
		}
	}
}
