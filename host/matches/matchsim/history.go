package matchsim

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/wire"
)

// The client's calls that read the recorded matches (the notes, §3), as
// the game client sends them: POST /client_requester.php with f in the
// query.

// (PathClient, the client's path, is in serverlist.go.)

// clientCall posts the client function fn with form; the reply must be
// HTTP 200 with a PHP array holding 0 => true (a refusal's 0 is false).
func clientCall(ctx context.Context, c *client.Client, fn string, form url.Values) (*Reply, error) {
	r, err := Call(ctx, c, fn, PathClient+"?f="+fn, form)
	if err != nil {
		return nil, err
	}
	if _, err := ok(r, "vested_threshold"); err != nil {
		return r, err
	}
	if v, _ := r.Array.Bool(0); !v {
		return r, refused(r, "%s answered 0 => false", fn)
	}
	return r, nil
}

// GetMatchStats asks for a match's statistics as the player of cookie.
func GetMatchStats(ctx context.Context, c *client.Client, cookie string, matchID int64) (*Reply, error) {
	return clientCall(ctx, c, "get_match_stats", url.Values{"cookie": {cookie}, "match_id": {strconv.FormatInt(matchID, 10)}})
}

// HistoryOverview asks for a player's last num matches (0: all kept).
func HistoryOverview(ctx context.Context, c *client.Client, nickname string, num int) (*Reply, error) {
	return clientCall(ctx, c, "match_history_overview", url.Values{"nickname": {nickname}, "table": {"player"},
		"num": {strconv.Itoa(num)}})
}

// HeroStats asks for a player's statistics with one hero.
func HeroStats(ctx context.Context, c *client.Client, cookie, nickname, hero string) (*Reply, error) {
	return clientCall(ctx, c, "get_hero_stats", url.Values{"cookie": {cookie}, "nickname": {nickname}, "hero": {hero},
		"hosttime": {"0"}, "account_id": {""}})
}

// AllHeroStats asks for the player's statistics with every hero.
func AllHeroStats(ctx context.Context, c *client.Client, cookie string) (*Reply, error) {
	return clientCall(ctx, c, "get_account_all_hero_stats", url.Values{"cookie": {cookie}})
}

// HeroLine is a player's figures with one hero, as the hero statistics
// show them (ph_games_played, ph_wins, ...).
type HeroLine struct {
	Matches, Wins, Losses, Concedes, Discos, Kills, Deaths, Assists, Secs int64
}

// HeroLines adds up each hero's figures of the player accountID over
// matches.
func HeroLines(accountID int64, matches ...*Match) map[string]*HeroLine {
	out := map[string]*HeroLine{}
	for _, m := range matches {
		for _, p := range m.Players {
			if p.AccountID != accountID {
				continue
			}
			h := out[p.Hero]
			if h == nil {
				h = &HeroLine{}
				out[p.Hero] = h
			}
			h.Matches++
			if p.Team == m.Winner {
				h.Wins++
			} else {
				h.Losses++
			}
			h.Concedes += int64(b2i(p.Conceded))
			h.Discos += int64(b2i(p.Disco))
			h.Kills += int64(p.Kills)
			h.Deaths += int64(p.Deaths)
			h.Assists += int64(p.Assists)
			h.Secs += int64(m.Seconds)
		}
	}
	return out
}

// diffArray compares the integer entries of arr named in want.
func diffArray(what string, arr *wire.Array, want map[string]int64) []string {
	var d []string
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		got, ok := IntOf(arr, k)
		if !ok || got != want[k] {
			d = append(d, fmt.Sprintf("%s %s = %d (present %v), want %d", what, k, got, ok, want[k]))
		}
	}
	return d
}

// CheckHeroStats compares a get_hero_stats reply with the hero's figures
// ("" when they agree).
func CheckHeroStats(r *Reply, hero string, want *HeroLine) string {
	if r.Array == nil {
		return "no PHP array"
	}
	d := diffArray("hero "+hero, r.Array, heroWant("ph_", want))
	if s, _ := r.Str("cli_name"); s != hero {
		d = append(d, fmt.Sprintf("cli_name %q, want %q", s, hero))
	}
	return strings.Join(d, "; ")
}

func heroWant(prefix string, h *HeroLine) map[string]int64 {
	return map[string]int64{prefix + "games_played": h.Matches, prefix + "wins": h.Wins, prefix + "losses": h.Losses,
		prefix + "concedes": h.Concedes, prefix + "discos": h.Discos, prefix + "herokills": h.Kills,
		prefix + "deaths": h.Deaths, prefix + "heroassists": h.Assists, prefix + "secs": h.Secs}
}

// CheckMatchStats compares a get_match_stats reply with the submitted
// match ("" when every figure shown is the submitted one).
func (m *Match) CheckMatchStats(r *Reply) string {
	if r.Array == nil {
		return "no PHP array"
	}
	var d []string
	sub := func(arr *wire.Array, keys ...any) *wire.Array {
		for _, k := range keys {
			if arr == nil {
				return nil
			}
			arr, _ = arr.Array(k)
		}
		return arr
	}
	summ := sub(r.Array, "match_summ", m.MatchID)
	if summ == nil {
		return fmt.Sprintf("no match_summ[%d]", m.MatchID)
	}
	d = append(d, diffArray("match_summ", summ, map[string]int64{"match_id": m.MatchID, "server_id": m.ServerID,
		"winning_team": int64(m.Winner), "time_played": int64(m.Seconds * 1000)})...)
	if s, _ := summ.String("map"); s != m.Map {
		d = append(d, fmt.Sprintf("match_summ map %q, want %q", s, m.Map))
	}
	players := sub(r.Array, "match_player_stats", m.MatchID)
	inv := sub(r.Array, "inventory", m.MatchID)
	if players == nil || inv == nil {
		return strings.Join(append(d, "no match_player_stats or inventory of the match"), "; ")
	}
	if players.Len() != len(m.Players) || inv.Len() != len(m.Players) {
		d = append(d, fmt.Sprintf("%d players' statistics and %d inventories, want %d", players.Len(), inv.Len(), len(m.Players)))
	}
	for _, p := range m.Players {
		ps := sub(players, p.AccountID)
		if ps == nil {
			d = append(d, fmt.Sprintf("no statistics of account %d", p.AccountID))
			continue
		}
		won := p.Team == m.Winner
		what := "player " + strconv.FormatInt(p.AccountID, 10)
		d = append(d, diffArray(what, ps, map[string]int64{"account_id": p.AccountID, "team": int64(p.Team),
			"herokills": int64(p.Kills), "deaths": int64(p.Deaths), "heroassists": int64(p.Assists),
			"wins": int64(b2i(won)), "losses": int64(b2i(!won)), "concedes": int64(b2i(p.Conceded)), "discos": int64(b2i(p.Disco)),
			"hero_id": int64(heroID(p.Hero)), "secs": int64(m.Seconds), "position": int64(p.Position)})...)
		if s, _ := ps.String("cli_name"); s != p.Hero {
			d = append(d, fmt.Sprintf("%s cli_name %q, want %q", what, s, p.Hero))
		}
		slots := sub(inv, p.AccountID)
		for slot := 1; slot <= 6; slot++ {
			want := inventory[(int(p.AccountID)+slot)%len(inventory)]
			if got, _ := slots.String("slot_" + strconv.Itoa(slot)); slots == nil || got != want {
				d = append(d, fmt.Sprintf("%s slot_%d %q, want %q", what, slot, got, want))
			}
		}
	}
	return strings.Join(d, "; ")
}

// HistoryEntry is the match as match_history_overview shows it for player
// p, without the date: match id, win flag, team, kills, deaths, assists,
// hero id, seconds, map.
func (m *Match) HistoryEntry(p Player) string {
	return strings.Join([]string{strconv.FormatInt(m.MatchID, 10), strconv.Itoa(b2i(p.Team == m.Winner)),
		strconv.Itoa(p.Team), strconv.Itoa(p.Kills), strconv.Itoa(p.Deaths), strconv.Itoa(p.Assists),
		strconv.Itoa(heroID(p.Hero)), strconv.Itoa(m.Seconds), m.Map}, ",")
}

// HistoryEntries are the m0..mN strings of a match_history_overview
// reply, in order.
func HistoryEntries(r *Reply) []string {
	var out []string
	for i := 0; r.Array != nil; i++ {
		s, ok := r.Array.String("m" + strconv.Itoa(i))
		if !ok {
			break
		}
		out = append(out, s)
	}
	return out
}

// CheckHistoryEntry compares one history string with the match as
// player p played it ("" when equal; the date is checked for its shape
// dd/mm/yyyy, the hero name for being p's).
func (m *Match) CheckHistoryEntry(entry string, p Player) string {
	f := strings.Split(entry, ",")
	if len(f) != 11 {
		return fmt.Sprintf("history entry %q has %d fields, want 11", entry, len(f))
	}
	if got, want := strings.Join(f[:9], ","), m.HistoryEntry(p); got != want {
		return fmt.Sprintf("history entry %q, want %q,<date>,%s", entry, want, p.Hero)
	}
	if len(f[9]) != 10 || f[9][2] != '/' || f[9][5] != '/' || f[10] != p.Hero {
		return fmt.Sprintf("history entry %q: date or hero wrong (want dd/mm/yyyy,%s)", entry, p.Hero)
	}
	return ""
}
