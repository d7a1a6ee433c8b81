package login

import (
	"strconv"
	"strings"
	"time"

	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// PreAuthReply is the 5-entry reply of pre_auth.
type PreAuthReply struct {
	Salt  string `php:"salt"`
	Salt2 string `php:"salt2"`
	B     string `php:"B"`
	wire.Extras
}

// SecInfo is the sec_info entry of the session record.
type SecInfo struct {
	InitialVector string `php:"initial_vector"`
	HashCode      string `php:"hash_code"`
	KeyVersion    string `php:"key_version"`
}

// SessionRecord is the reply of srpAuth (60 entries, with Proof) and of
// switch_auth (59 entries: ClientDisco first, no Proof, no MuteExpiration).
// Field order is the original service's wire order (protocol-notes §1).
type SessionRecord struct {
	ClientDisco         string      `php:"client_disco,omitempty"`
	Proof               string      `php:"proof,omitempty"`
	SecInfo             SecInfo     `php:"sec_info"`
	SuperID             string      `php:"super_id"`
	AccountID           string      `php:"account_id"`
	PartnerID           *string     `php:"garena_id"` // the spec's partner_id; null
	Nickname            string      `php:"nickname"`
	Email               string      `php:"email"`
	AccountType         string      `php:"account_type"`
	Trial               string      `php:"trial"`
	SuspID              string      `php:"susp_id"`
	PrepayOnly          *string     `php:"prepay_only"` // always null
	Standing            string      `php:"standing"`
	UseCloud            *string     `php:"use_cloud"`
	PassExp             *string     `php:"pass_exp"` // always null
	IsNew               int         `php:"is_new"`
	Cookie              string      `php:"cookie"`
	IP                  string      `php:"ip"`
	MinimumRankedLevel  string      `php:"minimum_ranked_level"`
	LeaverThreshold     string      `php:"leaverthreshold"`
	IsUnder24           bool        `php:"is_under_24"`
	IsSubaccount        bool        `php:"is_subaccount"`
	IsCurrentSubaccount bool        `php:"is_current_subaccount"`
	ICBURL              string      `php:"icb_url"`
	AuthHash            string      `php:"auth_hash"`
	HostTime            string      `php:"host_time"`
	ChatURL             string      `php:"chat_url"`
	ChatPort            string      `php:"chat_port"`
	CafeID              *string     `php:"cafe_id"`
	GCARegular          *string     `php:"gca_regular"`
	GCAPrime            *string     `php:"gca_prime"`
	CommentingURL       string      `php:"commenting_url"`
	CommentingPort      int         `php:"commenting_port"`
	HeroList            HeroList    `php:"hero_list"`
	BuddyList           *wire.Array `php:"buddy_list"`
	IgnoredList         *wire.Array `php:"ignored_list"`
	BannedList          *wire.Array `php:"banned_list"`
	Infos               []StatsInfo `php:"infos"`
	ClanMemberInfo      ErrorEntry  `php:"clan_member_info"`
	Chatrooms           []string    `php:"chatrooms"`
	Notifications       []Notice    `php:"notifications"`
	ClanRoster          ErrorEntry  `php:"clan_roster"`
	Identities          [][2]string `php:"identities"`
	Points              string      `php:"points"`
	MMPoints            string      `php:"mmpoints"`
	DiceTokens          string      `php:"dice_tokens"`
	SeasonLevel         int         `php:"season_level"`
	MyUpgrades          []string    `php:"my_upgrades"`
	SelectedUpgrades    []string    `php:"selected_upgrades"`
	GameTokens          int64       `php:"game_tokens"`
	MyUpgradesInfo      *wire.Array `php:"my_upgrades_info"`
	CreepLevel          int         `php:"creep_level"`
	Timestamp           int64       `php:"timestamp"`
	AwardsTooltip       encoded     `php:"awards_tooltip"`
	QuestSystem         QuestSystem `php:"quest_system"`
	CampaignSeason      string      `php:"campaign_current_season"`
	MMRRank             string      `php:"mmr_rank"`
	CloudStorageInfo    bool        `php:"account_cloud_storage_info"`
	MuteExpiration      *int64      `php:"mute_expiration,omitempty"`
	wire.Extras
}

// HeroList is the hero_list entry.
type HeroList struct {
	Free string `php:"free"`
}

// ErrorEntry is the shape of clan_member_info and clan_roster for an account
// without a clan.
type ErrorEntry struct {
	Error string `php:"error"`
}

// QuestSystem is the quest_system entry when quests are unavailable.
type QuestSystem struct {
	Error QuestStatus `php:"error"`
}

// QuestStatus holds the quest and leaderboard status codes.
type QuestStatus struct {
	QuestStatus       int `php:"quest_status"`
	LeaderboardStatus int `php:"leaderboard_status"`
}

// Notice is one entry of notifications.
type Notice struct {
	Notification string `php:"notification"`
	NotifyID     string `php:"notify_id"`
}

// BuddyRecord is one buddy of buddy_list; every field is a string or null.
type BuddyRecord struct {
	BuddyID  string  `php:"buddy_id"`
	Group    string  `php:"group"`
	ClanTag  *string `php:"clan_tag"`
	Status   string  `php:"status"`
	Nickname string  `php:"nickname"`
	Standing string  `php:"standing"`
	Inactive string  `php:"inactive"`
	New      string  `php:"new"`
}

// IgnoredRecord is one entry of ignored_list.
type IgnoredRecord struct {
	IgnoredID string `php:"ignored_id"`
	Nickname  string `php:"nickname"`
}

// BannedRecord is one entry of banned_list.
type BannedRecord struct {
	BannedID string `php:"banned_id"`
	Nickname string `php:"nickname"`
	Reason   string `php:"reason"`
}

// UpgradeInfo is one value of my_upgrades_info.
type UpgradeInfo struct {
	Data      string `php:"data"`
	EndTime   string `php:"end_time"`
	StartTime string `php:"start_time"`
	Used      int    `php:"used"`
	Score     string `php:"score"`
}

// StatsInfo is the 32-field statistics record (infos[0]), in the original
// service's wire order (protocol-notes §1): num_bot_games_won follows
// games_played.
type StatsInfo struct {
	AccountID      string  `php:"account_id"`
	Standing       string  `php:"standing"`
	Level          string  `php:"level"`
	LevelExp       string  `php:"level_exp"`
	Discos         string  `php:"discos"`
	PossibleDiscos string  `php:"possible_discos"`
	GamesPlayed    string  `php:"games_played"`
	BotGamesWon    *string `php:"num_bot_games_won"`
	AccPubSkill    string  `php:"acc_pub_skill"`
	AccWins        string  `php:"acc_wins"`
	AccLosses      string  `php:"acc_losses"`
	AccGames       string  `php:"acc_games_played"`
	AccDiscos      string  `php:"acc_discos"`
	RnkRating      string  `php:"rnk_amm_team_rating"`
	RnkWins        string  `php:"rnk_wins"`
	RnkLosses      string  `php:"rnk_losses"`
	RnkGames       string  `php:"rnk_games_played"`
	RnkDiscos      string  `php:"rnk_discos"`
	CSRating       string  `php:"cs_amm_team_rating"`
	CSWins         string  `php:"cs_wins"`
	CSLosses       string  `php:"cs_losses"`
	CSGames        string  `php:"cs_games_played"`
	CSDiscos       string  `php:"cs_discos"`
	MidGames       string  `php:"mid_games_played"`
	MidDiscos      string  `php:"mid_discos"`
	RiftGames      string  `php:"rift_games_played"`
	RiftDiscos     string  `php:"rift_discos"`
	IsNew          int     `php:"is_new"`
	CamGames       int     `php:"cam_games_played"`
	CamDiscos      int     `php:"cam_discos"`
	CamCSGames     int     `php:"cam_cs_games_played"`
	CamCSDiscos    int     `php:"cam_cs_discos"`
}

func itoa[T ~int | ~int32 | ~int64 | ~uint32](v T) string { return strconv.FormatInt(int64(v), 10) }
func decimal3(f float64) string                           { return strconv.FormatFloat(f, 'f', 3, 64) }
func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func statsInfo(a *storage.Account) StatsInfo {
	s := &a.Stats
	info := StatsInfo{
		AccountID: itoa(a.ID), Standing: itoa(a.Standing), Level: itoa(s.Level), LevelExp: itoa(s.LevelExp),
		Discos: itoa(s.Discos), PossibleDiscos: itoa(s.PossibleDiscos), GamesPlayed: itoa(s.GamesPlayed),
		AccPubSkill: decimal3(s.AccPubSkill), AccWins: itoa(s.AccWins), AccLosses: itoa(s.AccLosses),
		AccGames: itoa(s.AccGames), AccDiscos: itoa(s.AccDiscos),
		RnkRating: decimal3(s.RnkRating), RnkWins: itoa(s.RnkWins), RnkLosses: itoa(s.RnkLosses),
		RnkGames: itoa(s.RnkGames), RnkDiscos: itoa(s.RnkDiscos),
		CSRating: decimal3(s.CSRating), CSWins: itoa(s.CSWins), CSLosses: itoa(s.CSLosses),
		CSGames: itoa(s.CSGames), CSDiscos: itoa(s.CSDiscos),
		MidGames: itoa(s.MidGames), MidDiscos: itoa(s.MidDiscos), RiftGames: itoa(s.RiftGames), RiftDiscos: itoa(s.RiftDiscos),
		IsNew: boolInt(a.IsNew), CamGames: int(s.CamGames), CamDiscos: int(s.CamDiscos), CamCSGames: int(s.CamCSGames), CamCSDiscos: int(s.CamCSDiscos),
	}
	if s.BotGamesValid {
		v := itoa(s.BotGamesWon)
		info.BotGamesWon = &v
	}
	return info
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// notificationDate is the date text inside a notification string.
const notificationDate = "01/02/2006 15:04"

// notice renders a notification as the client's pipe-delimited text:
// sender, "", code, type, template, "", date, notify id.
func notice(n storage.Notification) Notice {
	id := strconv.FormatInt(n.ID, 10)
	text := strings.Join([]string{n.Sender, "", itoa(n.Code), n.Type, n.Template, "", n.Date.UTC().Format(notificationDate), id}, "|")
	return Notice{Notification: text, NotifyID: id}
}

// lists builds buddy_list, ignored_list and banned_list: keyed by the
// account id, or an empty array when the account has none.
func buddyList(a *storage.Account) *wire.Array {
	out := wire.NewArray()
	if len(a.Buddies) == 0 {
		return out
	}
	inner := wire.NewArray()
	for _, b := range a.Buddies {
		rec := BuddyRecord{BuddyID: itoa(b.ID), Group: b.Group, Status: itoa(b.Status), Nickname: b.Nickname,
			Standing: itoa(b.Standing), Inactive: flag(b.Inactive), New: flag(b.New)}
		if b.ClanTag != "" {
			tag := b.ClanTag
			rec.ClanTag = &tag
		}
		inner.Set(itoa(b.ID), rec)
	}
	return out.Set(itoa(a.ID), inner)
}

func ignoredList(a *storage.Account) *wire.Array {
	out := wire.NewArray()
	if len(a.Ignored) == 0 {
		return out
	}
	list := make([]IgnoredRecord, 0, len(a.Ignored))
	for _, ig := range a.Ignored {
		list = append(list, IgnoredRecord{IgnoredID: itoa(ig.ID), Nickname: ig.Nickname})
	}
	return out.Set(itoa(a.ID), list)
}

func bannedList(a *storage.Account) *wire.Array {
	out := wire.NewArray()
	if len(a.Banned) == 0 {
		return out
	}
	list := make([]BannedRecord, 0, len(a.Banned))
	for _, b := range a.Banned {
		list = append(list, BannedRecord{BannedID: itoa(b.ID), Nickname: b.Nickname, Reason: b.Reason})
	}
	return out.Set(itoa(a.ID), list)
}

func upgradesInfo(a *storage.Account) *wire.Array {
	out := wire.NewArray()
	for _, u := range a.Upgrades {
		out.Set(u.ID, UpgradeInfo{Data: u.Data, EndTime: strconv.FormatInt(u.EndTime, 10),
			StartTime: strconv.FormatInt(u.StartTime, 10), Used: u.Used, Score: u.Score})
	}
	return out
}

// awardsTooltip is the constant awards_tooltip table.
func awardsTooltip() *wire.Array {
	type expGC struct {
		Exp int `php:"exp"`
		GC  int `php:"gc"`
	}
	type teamExpGC struct {
		Exp   int `php:"exp"`
		GC    int `php:"gc"`
		TMExp int `php:"tm_exp"`
		TMGC  int `php:"tm_gc"`
	}
	type milestone struct {
		Name   string `php:"aname"`
		Exp    string `php:"exp"`
		GC     string `php:"gc"`
		Modulo string `php:"modulo"`
	}
	milestones := wire.NewArray().
		Set("heroassists", milestone{"Hero Assists", "5", "1", "100"}).
		Set("herokills", milestone{"Hero Kills", "5", "1", "100"}).
		Set("smackdown", milestone{"Smackdowns", "5", "1", "10"}).
		Set("wards", milestone{"Wards", "5", "1", "50"}).
		Set("wins", milestone{"Wins", "10", "2", "10"})
	return wire.NewArray().
		Set("milestones", milestones).
		Set("leveling", wire.NewArray().Set("2-5", 5).Set("6-10", 10).Set("11-15", 15)).
		Set("bloodlust", expGC{5, 1}).
		Set("annihilation", teamExpGC{25, 5, 10, 2}).
		Set("immortal", teamExpGC{25, 5, 10, 2}).
		Set("victory", expGC{20, 4}).
		Set("loss", expGC{10, 2}).
		Set("disco", expGC{0, 0}).
		Set("quick", expGC{5, 1}).
		Set("first", expGC{15, 3}).
		Set("consec_win", struct {
			Exp int    `php:"exp"`
			GC  string `php:"gc"`
		}{5, "1-5"}).
		Set("consec_loss", expGC{5, 1})
}

// unix renders t as decimal unix seconds.
func unix(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// encoded is a value serialized once and reused verbatim (awards_tooltip is
// the same in every session record).
type encoded []byte

// AppendPHP implements wire.Marshaler.
func (e encoded) AppendPHP(dst []byte) ([]byte, error) { return append(dst, e...), nil }

func mustEncode(v any) encoded {
	b, err := wire.Marshal(v)
	if err != nil {
		panic("login: constant record part does not encode: " + err.Error())
	}
	return b
}
