package matchsim

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
)

// Heroes are hero cli names the builder picks from.
var Heroes = []string{"Hero_Pyromancer", "Hero_Devourer", "Hero_Hammerstorm", "Hero_Legionnaire", "Hero_Accursed",
	"Hero_Arachna", "Hero_Behemoth", "Hero_Chronos", "Hero_Ebulus", "Hero_Frosty", "Hero_Hellbringer", "Hero_Kraken",
	"Hero_Magmar", "Hero_Nymphora", "Hero_Pestilence", "Hero_Rocky", "Hero_Scout", "Hero_Soulstealer"}

// Player is one player of a simulated match, keyed in the submission by
// the account id (the notes' korDen reading of player_stats[<key>]).
type Player struct {
	AccountID int64
	Nickname  string
	Hero      string // hero cli name
	Team      int    // 1 or 2
	Position  int
	Kills     int
	Deaths    int
	Assists   int
	Conceded  bool // voted to concede (on the losing team)
	Disco     bool // disconnected (on the losing team)
}

// Match is a simulated match's submission.
type Match struct {
	MatchID, ServerID int64
	Map               string
	Seconds           int
	Winner            int // the winning team, 1 or 2
	Players           []Player
	rng               *rand.Rand // events of the long form
}

// Totals are an account's match totals, as the area's operator API
// (GET /api/matches/totals) gives them.
type Totals struct {
	AccountID int64            `json:"account_id"`
	Matches   int64            `json:"matches"`
	Wins      int64            `json:"wins"`
	Losses    int64            `json:"losses"`
	Concedes  int64            `json:"concedes"`
	Discos    int64            `json:"discos"`
	Kills     int64            `json:"kills"`
	Deaths    int64            `json:"deaths"`
	Assists   int64            `json:"assists"`
	Heroes    map[string]int64 `json:"heroes"`
}

// Add adds the match's part of p (a player of a match won by winner).
func (t *Totals) Add(p Player, winner int) {
	t.Matches++
	if p.Team == winner {
		t.Wins++
	} else {
		t.Losses++
	}
	if p.Conceded {
		t.Concedes++
	}
	if p.Disco {
		t.Discos++
	}
	t.Kills += int64(p.Kills)
	t.Deaths += int64(p.Deaths)
	t.Assists += int64(p.Assists)
	if t.Heroes == nil {
		t.Heroes = map[string]int64{}
	}
	t.Heroes[p.Hero]++
}

// Diff says how got differs from t ("" when equal, heroes with 0 counts
// alike).
func (t *Totals) Diff(got *Totals) string {
	var d []string
	for _, f := range []struct {
		name      string
		want, got int64
	}{{"matches", t.Matches, got.Matches}, {"wins", t.Wins, got.Wins}, {"losses", t.Losses, got.Losses},
		{"concedes", t.Concedes, got.Concedes}, {"discos", t.Discos, got.Discos}, {"kills", t.Kills, got.Kills},
		{"deaths", t.Deaths, got.Deaths}, {"assists", t.Assists, got.Assists}} {
		if f.want != f.got {
			d = append(d, fmt.Sprintf("%s %d, want %d", f.name, f.got, f.want))
		}
	}
	for h, n := range t.Heroes {
		if got.Heroes[h] != n {
			d = append(d, fmt.Sprintf("%s %d, want %d", h, got.Heroes[h], n))
		}
	}
	for h, n := range got.Heroes {
		if _, ok := t.Heroes[h]; !ok && n != 0 {
			d = append(d, fmt.Sprintf("%s %d, want 0", h, n))
		}
	}
	return strings.Join(d, "; ")
}

// NewMatch makes a match of the players (account id and nickname each;
// ten make a 5v5, the first half team 1): heroes, K/D/A and the winner at
// random from rng, the losing team conceding in about one match of four
// and one of its players disconnected in about one of five.
func NewMatch(rng *rand.Rand, matchID, serverID int64, ids []int64, nicks []string) *Match {
	m := &Match{MatchID: matchID, ServerID: serverID, Map: "caldavar", Seconds: 900 + rng.IntN(2700),
		Winner: 1 + rng.IntN(2), rng: rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))}
	heroes := rng.Perm(len(Heroes))
	conceded, disco := rng.IntN(4) == 0, rng.IntN(5) == 0
	half := (len(ids) + 1) / 2
	for i, id := range ids {
		p := Player{AccountID: id, Nickname: nicks[i], Hero: Heroes[heroes[i%len(heroes)]], Team: 1 + i/half,
			Position: i % half, Kills: rng.IntN(15), Deaths: rng.IntN(12), Assists: rng.IntN(20)}
		if p.Team != m.Winner {
			p.Conceded = conceded
			if disco && p.Position == 0 {
				p.Disco = true
			}
		}
		m.Players = append(m.Players, p)
	}
	return m
}

// Totals are each player's part of the match, by account id.
func (m *Match) Totals() map[int64]*Totals {
	out := map[int64]*Totals{}
	for _, p := range m.Players {
		t := &Totals{AccountID: p.AccountID}
		t.Add(p, m.Winner)
		out[p.AccountID] = t
	}
	return out
}

// awards are the match's award winners (eleven awd_* fields).
var awards = []string{"awd_mann", "awd_mqk", "awd_lgks", "awd_msd", "awd_mkill", "awd_masst", "awd_ledth",
	"awd_mbdmg", "awd_mwk", "awd_mhdd", "awd_hcs"}

// playerFields are the per-player fields after the identity ones, each a
// number the builder fills (the notes list them by group: cosmetics,
// results, combat and economy counters, streaks and awards, gameplay
// stats, skill and team ratings).
var playerFields = []string{
	// cosmetic name/pid pairs
	"alt_avatar_name", "alt_avatar_pid", "ward_name", "ward_pid", "taunt_name", "taunt_pid", "announcer_name",
	"announcer_pid", "courier_name", "courier_pid", "account_icon_name", "account_icon_pid", "chat_color_name",
	"chat_color_pid",
	// results besides wins, losses, discos, concedes
	"kicked", "social_bonus", "used_token", "concedevotes", "actions", "benefit",
	// combat and economy besides herokills, deaths, heroassists
	"herodmg", "herokillsgold", "heroexp", "buybacks", "goldlost2death", "secs_dead", "teamcreepkills",
	"teamcreepdmg", "teamcreepgold", "teamcreepexp", "neutralcreepkills", "neutralcreepdmg", "neutralcreepgold",
	"neutralcreepexp", "bdmg", "razed", "bdmgexp", "bgold", "denies", "exp_denied", "gold", "gold_spent", "exp",
	"level", "secs", "consumables", "wards",
	// streaks and awards
	"bloodlust", "doublekill", "triplekill", "quadkill", "annihilation", "ks3", "ks4", "ks5", "ks6", "ks7", "ks8",
	"ks9", "ks10", "ks15", "smackdown", "humiliation", "nemesis", "retribution", "score",
	// gameplay stats, skill, team rating
	"gameplaystat0", "gameplaystat1", "gameplaystat2", "gameplaystat3", "gameplaystat4", "gameplaystat5",
	"gameplaystat6", "gameplaystat7", "gameplaystat8", "gameplaystat9", "pub_skill", "pub_count",
	"amm_team_rating", "amm_team_count", "achievement_data",
}

// PlayerFieldCount is how many fields each player's statistics have.
var PlayerFieldCount = 7 + 7 + len(playerFields)

// Form is the match's statistics as a game server submits them, without
// f and session (about 1,040 values for a 5v5): match_stats[<field>],
// team_stats[<team>][score], player_stats[<account_id>][<hero>][<field>]
// and inventory[<account_id>][<slot>].
func (m *Match) Form() url.Values {
	f := url.Values{}
	ms := func(k string, v any) { f.Set("match_stats["+k+"]", fmt.Sprint(v)) }
	ms("server_id", m.ServerID)
	ms("match_id", m.MatchID)
	ms("map", m.Map)
	ms("map_version", "0.0.0")
	ms("time_played", m.Seconds*1000)
	ms("file_size", 2_000_000+m.Seconds*1000)
	ms("file_name", "M"+strconv.FormatInt(m.MatchID, 10)+".honreplay")
	ms("c_state", StateInGame)
	ms("version", "4.10.1.0")
	ms("avgpsr", 1500)
	ms("avgpsr_team1", 1490)
	ms("avgpsr_team2", 1510)
	ms("gamemode", "normal")
	ms("teamscoregoal", 0)
	ms("playerscoregoal", 0)
	ms("numrounds", 1)
	ms("release_stage", "stable")
	ms("banned_heroes", "")
	ms("event_id", 0)
	ms("matchup_id", 0)
	var best Player
	for i, p := range m.Players {
		if i == 0 || p.Kills > best.Kills {
			best = p
		}
	}
	ms("mvp", best.AccountID)
	for _, a := range awards {
		ms(a, best.AccountID)
	}
	ms("submission_debug", "")
	score := map[int]int{}
	for _, p := range m.Players {
		score[p.Team] += p.Kills
	}
	for team := 1; team <= 2; team++ {
		f.Set("team_stats["+strconv.Itoa(team)+"][score]", strconv.Itoa(score[team]))
	}
	for _, p := range m.Players {
		key := strconv.FormatInt(p.AccountID, 10)
		ps := func(k string, v any) { f.Set("player_stats["+key+"]["+p.Hero+"]["+k+"]", fmt.Sprint(v)) }
		won := p.Team == m.Winner
		ps("nickname", p.Nickname)
		ps("clan_tag", "")
		ps("clan_id", 0)
		ps("team", p.Team)
		ps("position", p.Position)
		ps("group_num", 0)
		ps("hero_id", heroID(p.Hero))
		ps("wins", b2i(won))
		ps("losses", b2i(!won))
		ps("discos", b2i(p.Disco))
		ps("concedes", b2i(p.Conceded))
		ps("herokills", p.Kills)
		ps("deaths", p.Deaths)
		ps("heroassists", p.Assists)
		for i, k := range playerFields {
			v := (int(p.AccountID)*31 + i*7) % 500
			switch k {
			case "level":
				v = 1 + (p.Kills+p.Assists)%25
			case "secs":
				v = m.Seconds
			case "concedevotes":
				v = b2i(p.Conceded)
			case "achievement_data":
				ps(k, "")
				continue
			}
			ps(k, v)
		}
		for slot := 1; slot <= 6; slot++ {
			f.Set("inventory["+key+"]["+strconv.Itoa(slot)+"]", inventory[(int(p.AccountID)+slot)%len(inventory)])
		}
	}
	return f
}

// inventory are items the players carry at the end.
var inventory = []string{"Item_Steamboots", "Item_PortalKey", "Item_Strength5", "Item_Intelligence7",
	"Item_Protect", "Item_Immunity", "Item_Weapon1", "Item_Lightning2", "Item_HealthPotion", ""}

// Long is the match's statistics with the event logs a server sends with
// svr_submitMatchStatItems, svr_submitMatchStatAbilities and
// svr_submitMatchStatFrags on (about 4,500 values for a 5v5): 55 item
// events and 25 ability levels per player, and one frag per kill.
func (m *Match) Long() url.Values {
	f := m.Form()
	rng := m.rng
	if rng == nil {
		rng = rand.New(rand.NewPCG(uint64(m.MatchID), 1))
	}
	n := 0
	for _, p := range m.Players {
		for range 55 {
			k := "items[" + strconv.Itoa(n) + "]"
			n++
			f.Set(k+"[account_id]", strconv.FormatInt(p.AccountID, 10))
			f.Set(k+"[cli_name]", inventory[rng.IntN(len(inventory)-1)])
			f.Set(k+"[secs]", strconv.Itoa(rng.IntN(max(m.Seconds, 1))))
			f.Set(k+"[action]", []string{"buy", "sell", "drop"}[rng.IntN(3)])
		}
	}
	for _, p := range m.Players {
		key := strconv.FormatInt(p.AccountID, 10)
		for lvl := range 25 {
			k := "abilities[" + key + "][" + strconv.Itoa(lvl) + "]"
			f.Set(k+"[hero_cli_name]", p.Hero)
			f.Set(k+"[ability_cli_name]", "Ability_"+strings.TrimPrefix(p.Hero, "Hero_")+strconv.Itoa(1+lvl%4))
			f.Set(k+"[secs]", strconv.Itoa(lvl*60))
			f.Set(k+"[slot]", strconv.Itoa(lvl%4))
		}
	}
	n = 0
	for _, p := range m.Players {
		for range p.Kills {
			var foes []Player
			for _, q := range m.Players {
				if q.Team != p.Team {
					foes = append(foes, q)
				}
			}
			target := p
			if len(foes) > 0 {
				target = foes[rng.IntN(len(foes))]
			}
			k := "frags[" + strconv.Itoa(n) + "]"
			n++
			f.Set(k+"[killer_id]", strconv.FormatInt(p.AccountID, 10))
			f.Set(k+"[target_id]", strconv.FormatInt(target.AccountID, 10))
			f.Set(k+"[secs]", strconv.Itoa(rng.IntN(max(m.Seconds, 1))))
			f.Set(k+"[assisters]", "")
		}
	}
	return f
}

// Hostile are the forms a server must refuse, each built on a valid
// submission of the match.
type Hostile int

const (
	// HostileMany is 200,000 values (item events past any sane count).
	HostileMany Hostile = iota
	// HostileNesting adds a key nested four deep, a[b][c][d][e].
	HostileNesting
	// HostileBrackets adds a key of ten thousand bracket pairs.
	HostileBrackets
	// HostileUTF8Key adds a key that is not valid UTF-8.
	HostileUTF8Key
	// HostileUTF8Value gives a player a nickname that is not valid UTF-8.
	HostileUTF8Value
)

// Hostiles lists every hostile form, for tests that try them all.
var Hostiles = []Hostile{HostileMany, HostileNesting, HostileBrackets, HostileUTF8Key, HostileUTF8Value}

// String names the hostile form.
func (h Hostile) String() string {
	switch h {
	case HostileMany:
		return "200,000 values"
	case HostileNesting:
		return "a[b][c][d][e]"
	case HostileBrackets:
		return "ten thousand brackets"
	case HostileUTF8Key:
		return "invalid UTF-8 in a key"
	case HostileUTF8Value:
		return "invalid UTF-8 in a value"
	}
	return "hostile " + strconv.Itoa(int(h))
}

// HostileValues is how many values HostileMany has (without f and
// session).
const HostileValues = 200_000

// Hostile is the match's statistics made hostile as h says.
func (m *Match) Hostile(h Hostile) url.Values {
	f := m.Form()
	switch h {
	case HostileMany:
		fields := []string{"account_id", "cli_name", "secs", "action"}
		for n, have := 0, CountValues(f); have < HostileValues; n++ {
			k := "items[" + strconv.Itoa(n) + "]"
			vals := []string{strconv.FormatInt(m.Players[n%len(m.Players)].AccountID, 10), "Item_HealthPotion", strconv.Itoa(n), "buy"}
			for i := 0; i < len(fields) && have < HostileValues; i++ {
				f.Set(k+"["+fields[i]+"]", vals[i])
				have++
			}
		}
	case HostileNesting:
		f.Set("a[b][c][d][e]", "1")
	case HostileBrackets:
		f.Set("match_stats"+strings.Repeat("[b]", 10_000), "1")
	case HostileUTF8Key:
		f.Set("match_stats[\xff\xfe]", "1")
	case HostileUTF8Value:
		p := m.Players[0]
		f.Set("player_stats["+strconv.FormatInt(p.AccountID, 10)+"]["+p.Hero+"][nickname]", "bad\xff\xfename")
	}
	return f
}

// CountValues is how many values a form has.
func CountValues(f url.Values) int {
	n := 0
	for _, vs := range f {
		n += len(vs)
	}
	return n
}

// heroID is a stable number for a hero cli name (the game's ids are not
// needed: the area keys heroes by cli name).
func heroID(hero string) int {
	for i, h := range Heroes {
		if h == hero {
			return 1 + i
		}
	}
	return 0
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
