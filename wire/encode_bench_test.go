package wire

import (
	"strings"
	"testing"
)

// The session record below mirrors the 60-entry srpAuth reply (key order as
// in protocol-notes.md); it serves the benchmark and a golden fixture.

type secInfo struct {
	InitialVector string `php:"initial_vector"`
	HashCode      string `php:"hash_code"`
	KeyVersion    string `php:"key_version"`
}

type statsRecord struct {
	AccountID        string  `php:"account_id"`
	Standing         string  `php:"standing"`
	Level            string  `php:"level"`
	LevelExp         string  `php:"level_exp"`
	Discos           string  `php:"discos"`
	PossibleDiscos   string  `php:"possible_discos"`
	GamesPlayed      string  `php:"games_played"`
	NumBotGamesWon   *string `php:"num_bot_games_won"`
	AccPubSkill      string  `php:"acc_pub_skill"`
	AccWins          string  `php:"acc_wins"`
	AccLosses        string  `php:"acc_losses"`
	AccGamesPlayed   string  `php:"acc_games_played"`
	AccDiscos        string  `php:"acc_discos"`
	RnkAmmTeamRating string  `php:"rnk_amm_team_rating"`
	RnkWins          string  `php:"rnk_wins"`
	RnkLosses        string  `php:"rnk_losses"`
	RnkGamesPlayed   string  `php:"rnk_games_played"`
	RnkDiscos        string  `php:"rnk_discos"`
	CsAmmTeamRating  string  `php:"cs_amm_team_rating"`
	CsWins           string  `php:"cs_wins"`
	CsLosses         string  `php:"cs_losses"`
	CsGamesPlayed    string  `php:"cs_games_played"`
	CsDiscos         string  `php:"cs_discos"`
	MidGamesPlayed   string  `php:"mid_games_played"`
	MidDiscos        string  `php:"mid_discos"`
	RiftGamesPlayed  string  `php:"rift_games_played"`
	RiftDiscos       string  `php:"rift_discos"`
	IsNew            int     `php:"is_new"`
	CamGamesPlayed   int     `php:"cam_games_played"`
	CamDiscos        int     `php:"cam_discos"`
	CamCsGamesPlayed int     `php:"cam_cs_games_played"`
	CamCsDiscos      int     `php:"cam_cs_discos"`
}

type notification struct {
	Notification string `php:"notification"`
	NotifyID     string `php:"notify_id"`
}

type expGC struct {
	Exp int `php:"exp"`
	GC  int `php:"gc"`
}

type upgradeInfo struct {
	Data      string `php:"data,omitempty"`
	EndTime   string `php:"end_time,omitempty"`
	StartTime string `php:"start_time,omitempty"`
	Used      int    `php:"used,omitempty"`
	Score     string `php:"score,omitempty"`
}

type sessionRecord struct {
	Proof                   string                 `php:"proof"`
	SecInfo                 secInfo                `php:"sec_info"`
	SuperID                 string                 `php:"super_id"`
	AccountID               string                 `php:"account_id"`
	GarenaID                *string                `php:"garena_id"`
	Nickname                string                 `php:"nickname"`
	Email                   string                 `php:"email"`
	AccountType             string                 `php:"account_type"`
	Trial                   string                 `php:"trial"`
	SuspID                  string                 `php:"susp_id"`
	PrepayOnly              *string                `php:"prepay_only"`
	Standing                string                 `php:"standing"`
	UseCloud                *string                `php:"use_cloud"`
	PassExp                 *string                `php:"pass_exp"`
	IsNew                   int                    `php:"is_new"`
	Cookie                  string                 `php:"cookie"`
	IP                      string                 `php:"ip"`
	MinimumRankedLevel      string                 `php:"minimum_ranked_level"`
	LeaverThreshold         string                 `php:"leaverthreshold"`
	IsUnder24               bool                   `php:"is_under_24"`
	IsSubaccount            bool                   `php:"is_subaccount"`
	IsCurrentSubaccount     bool                   `php:"is_current_subaccount"`
	IcbURL                  string                 `php:"icb_url"`
	AuthHash                string                 `php:"auth_hash"`
	HostTime                string                 `php:"host_time"`
	ChatURL                 string                 `php:"chat_url"`
	ChatPort                string                 `php:"chat_port"`
	CafeID                  *string                `php:"cafe_id"`
	GcaRegular              *string                `php:"gca_regular"`
	GcaPrime                *string                `php:"gca_prime"`
	CommentingURL           string                 `php:"commenting_url"`
	CommentingPort          int                    `php:"commenting_port"`
	HeroList                map[string]string      `php:"hero_list"`
	BuddyList               *Array                 `php:"buddy_list"`
	IgnoredList             *Array                 `php:"ignored_list"`
	BannedList              *Array                 `php:"banned_list"`
	Infos                   []statsRecord          `php:"infos"`
	ClanMemberInfo          map[string]string      `php:"clan_member_info"`
	Chatrooms               []string               `php:"chatrooms"`
	Notifications           []notification         `php:"notifications"`
	ClanRoster              map[string]string      `php:"clan_roster"`
	Identities              [][2]string            `php:"identities"`
	Points                  string                 `php:"points"`
	MMPoints                string                 `php:"mmpoints"`
	DiceTokens              string                 `php:"dice_tokens"`
	SeasonLevel             int                    `php:"season_level"`
	MyUpgrades              []string               `php:"my_upgrades"`
	SelectedUpgrades        []string               `php:"selected_upgrades"`
	GameTokens              int                    `php:"game_tokens"`
	MyUpgradesInfo          map[string]upgradeInfo `php:"my_upgrades_info"`
	CreepLevel              int                    `php:"creep_level"`
	Timestamp               int64                  `php:"timestamp"`
	AwardsTooltip           map[string]expGC       `php:"awards_tooltip"`
	QuestSystem             *Array                 `php:"quest_system"`
	CampaignCurrentSeason   string                 `php:"campaign_current_season"`
	MMRRank                 string                 `php:"mmr_rank"`
	AccountCloudStorageInfo bool                   `php:"account_cloud_storage_info"`
	MuteExpiration          int                    `php:"mute_expiration"`
	Extras
}

func sampleSession() *sessionRecord {
	hex := func(n int) string { return strings.Repeat("0123456789abcdef", n/16+1)[:n] }
	return &sessionRecord{
		Proof:              hex(64),
		SecInfo:            secInfo{InitialVector: hex(16), HashCode: hex(40), KeyVersion: "3e2d"},
		SuperID:            "1000",
		AccountID:          "1000",
		Nickname:           "SouL",
		Email:              "<EMAIL>",
		AccountType:        "3",
		Trial:              "0",
		SuspID:             "0",
		Standing:           "3",
		Cookie:             hex(32),
		IP:                 "192.0.2.7",
		MinimumRankedLevel: "3",
		LeaverThreshold:    "0.05",
		IsSubaccount:       true,
		IcbURL:             "http://example.invalid/icb",
		AuthHash:           hex(40),
		HostTime:           "1700000000",
		ChatURL:            "192.0.2.1",
		ChatPort:           "11031",
		CommentingURL:      "192.0.2.1",
		CommentingPort:     11035,
		HeroList:           map[string]string{"free": "Hero_Pyromancer,Hero_Hammerstorm"},
		BuddyList: NewArray().Set("1000", NewArray().Set("1001", map[string]any{
			"buddy_id": "1001", "group": "", "clan_tag": nil, "status": "2",
			"nickname": "Friend", "standing": "3", "inactive": "0", "new": "0",
		})),
		IgnoredList: NewArray().Set("1000", NewArray()),
		BannedList:  NewArray().Set("1000", NewArray()),
		Infos: []statsRecord{{
			AccountID: "1000", Standing: "3", Level: "12", LevelExp: "4321", AccPubSkill: "1500.000",
			RnkAmmTeamRating: "1500.000", CsAmmTeamRating: "1500.000", GamesPlayed: "10",
		}},
		ClanMemberInfo: map[string]string{"error": "No clan member found"},
		Chatrooms:      []string{"HoN", "Newbies"},
		Notifications: []notification{{
			Notification: "Friend||23|notify_buddy_added|notify_buddy_added||05/09/21 03:18:47pm|7",
			NotifyID:     "7",
		}},
		ClanRoster:       map[string]string{"error": "No clan members found"},
		Identities:       [][2]string{{"SouL", "1000"}, {"SouL2", "1002"}},
		Points:           "100",
		MMPoints:         "20",
		DiceTokens:       "1",
		SeasonLevel:      2,
		MyUpgrades:       []string{"m.Foo", "h.Bar", "av.Hero_Pyromancer.Alt"},
		SelectedUpgrades: []string{"av.Hero_Pyromancer.Alt"},
		GameTokens:       3,
		MyUpgradesInfo: map[string]upgradeInfo{
			"m.Foo": {Data: "x", EndTime: "0", StartTime: "1600000000", Used: 1},
			"h.Bar": {Score: "12"},
		},
		CreepLevel: 1,
		Timestamp:  1700000000,
		AwardsTooltip: map[string]expGC{
			"bloodlust": {10, 1}, "victory": {20, 2}, "loss": {5, 0}, "disco": {0, 0},
		},
		QuestSystem:           NewArray().Set("error", NewArray().Set("quest_status", 0).Set("leaderboard_status", 0)),
		CampaignCurrentSeason: "6",
		MMRRank:               "1250,1275,1300,1325,1350,1375,1400",
	}
}

func BenchmarkMarshalSession(b *testing.B) {
	v := sampleSession()
	buf, err := AppendMarshal(nil, v)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if buf, err = AppendMarshal(buf[:0], v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalPreAuth(b *testing.B) {
	v := &preAuthReply{Salt: strings.Repeat("ab", 256), Salt2: strings.Repeat("c", 22), B: strings.Repeat("ef", 256)}
	buf, _ := AppendMarshal(nil, v)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = AppendMarshal(buf[:0], v)
	}
}

func BenchmarkUnmarshalSession(b *testing.B) {
	data, err := Marshal(sampleSession())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Unmarshal(data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSessionRecordHas60Entries(t *testing.T) {
	out, err := Marshal(sampleSession())
	if err != nil {
		t.Fatal(err)
	}
	v, err := Unmarshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := v.(*Array).Len(); n != 60 {
		t.Fatalf("session record has %d entries, want 60", n)
	}
}
