package matches

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	pb "github.com/honmaster/masterserver/host/matches/internal/matchesrecpb"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// Hero statistics (get_hero_stats, get_campaign_hero_stats,
// get_hero_usage_list, get_account_all_hero_stats) are read from the
// player's per-hero totals (Totals.hero_stats), which the matches.record
// effect's share writes with the player's totals: at most maxHeroes
// heroes, so a reply's cost does not grow with the player's matches. A
// player, or a hero, without a recorded match answers the notes' empty
// reply {vested_threshold: 5, 0: true}; these functions never answer 500
// for missing data.

type heroStatsRequest struct {
	Cookie    string `form:"cookie,required" doc:"the asking player's session cookie"`
	Nickname  string `form:"nickname" doc:"the player shown (else account_id, else the asking player)"`
	AccountID string `form:"account_id" doc:"the player shown, when nickname is absent"`
	Hero      string `form:"hero" doc:"the hero: cli name (Hero_Pyromancer) or hero id"`
	HostTime  string `form:"hosttime" doc:"read, unused"`
}

type campaignRequest struct {
	Cookie   string `form:"cookie,required" doc:"the asking player's session cookie"`
	Nickname string `form:"nickname" doc:"the player shown (else the asking player)"`
	HeroName string `form:"hero_name" doc:"the hero: cli name or hero id"`
	IsCasual string `form:"is_casual" doc:"1: casual statistics (none are kept: the empty reply)"`
}

type usageRequest struct {
	Cookie string `form:"cookie,required" doc:"the player's session cookie"`
	Sort   string `form:"sort" doc:"use (default), win or loss"`
}

// subject is the player a hero call shows: nickname, else account id,
// else the asking player. ok false: no such player.
func (a *Area) subject(asker storage.AccountID, nickname, accountID string) (storage.AccountID, bool, error) {
	if strings.TrimSpace(nickname) != "" {
		return a.playerByNickname(nickname)
	}
	if accountID != "" {
		id, err := strconv.ParseUint(accountID, 10, 32)
		if err != nil || id == 0 {
			return 0, false, nil
		}
		ok, err := a.sys.DB().AccountExists(storage.AccountID(id))
		return storage.AccountID(id), ok, err
	}
	return asker, true, nil
}

// findHero is the player's totals with hero (cli name, or hero id).
func findHero(t *pb.Totals, hero string) (string, *pb.HeroTotals) {
	hero = strings.TrimSpace(hero)
	if h, ok := t.HeroStats[hero]; ok {
		return hero, h
	}
	if id, err := strconv.ParseInt(hero, 10, 32); err == nil && id > 0 {
		for _, name := range sortedKeys(t.HeroStats) {
			if h := t.HeroStats[name]; int64(h.HeroId) == id {
				return name, h
			}
		}
	}
	for _, name := range sortedKeys(t.HeroStats) { // case-insensitive
		if strings.EqualFold(name, hero) {
			return name, t.HeroStats[name]
		}
	}
	return "", nil
}

// setCounters sets the hero's counters, each key prefixed.
func setCounters(arr *wire.Array, prefix string, h *pb.HeroTotals) *wire.Array {
	return arr.Set(prefix+"games_played", h.Matches).Set(prefix+"wins", h.Wins).Set(prefix+"losses", h.Losses).
		Set(prefix+"concedes", h.Concedes).Set(prefix+"discos", h.Discos).Set(prefix+"herokills", h.Kills).
		Set(prefix+"deaths", h.Deaths).Set(prefix+"heroassists", h.Assists).Set(prefix+"secs", h.Secs)
}

// heroOf reads the subject's totals with hero; h nil: nothing yet.
func (a *Area) heroOf(asker storage.AccountID, nickname, accountID, hero string) (storage.AccountID, string, *pb.HeroTotals, error) {
	id, ok, err := a.subject(asker, nickname, accountID)
	if err != nil || !ok {
		return 0, "", nil, err
	}
	t, err := TotalsOf(a.sys.DB(), id)
	if err != nil {
		return 0, "", nil, err
	}
	name, h := findHero(t, hero)
	if h == nil || h.Matches == 0 {
		return id, "", nil, nil
	}
	return id, name, h, nil
}

func (a *Area) heroStats(_ context.Context, r *wire.Request) (*wire.Array, error) {
	var req heroStatsRequest
	if err := r.Decode(&req); err != nil {
		return nil, badRequest(err)
	}
	asker, err := a.player(req.Cookie)
	if err != nil {
		return nil, err
	}
	return a.heroStatsFor(asker, req)
}

// heroStatsFor is get_hero_stats for the signed-in player asker.
func (a *Area) heroStatsFor(asker storage.AccountID, req heroStatsRequest) (*wire.Array, error) {
	id, name, h, err := a.heroOf(asker, req.Nickname, req.AccountID, req.Hero)
	if err != nil || h == nil {
		return done(wire.NewArray()), err
	}
	nick := "" // the player's nickname, as every other reply of the area names it (never the login)
	if acct, err := a.sys.DB().AccountProfile(id); err == nil {
		nick = acct.Nickname
	}
	arr := wire.NewArray().Set("account_id", int64(id)).Set("nickname", nick).Set("hero_id", int64(h.HeroId)).Set("cli_name", name)
	return done(setCounters(arr, "ph_", h)), nil
}

func (a *Area) campaignHeroStats(_ context.Context, r *wire.Request) (*wire.Array, error) {
	var req campaignRequest
	if err := r.Decode(&req); err != nil {
		return nil, badRequest(err)
	}
	asker, err := a.player(req.Cookie)
	if err != nil {
		return nil, err
	}
	id, _, h, err := a.heroOf(asker, req.Nickname, "", req.HeroName)
	if err != nil || h == nil || strings.TrimSpace(req.IsCasual) == "1" {
		return done(wire.NewArray()), err
	}
	arr := wire.NewArray().Set("season", 0).Set("account_id", int64(id)).Set("hero_id", int64(h.HeroId))
	return done(setCounters(arr, "cam_ph_", h)), nil
}

// usageSeparators drops get_hero_usage_list's separators from a name.
var usageSeparators = strings.NewReplacer("|", "", "`", "")

// usage is one hero's line of get_hero_usage_list.
type usage struct {
	hero                string
	uses, wins, losses  int64
	usePct, win, lossPc float64
}

func (a *Area) heroUsage(_ context.Context, r *wire.Request) (*wire.Array, error) {
	var req usageRequest
	if err := r.Decode(&req); err != nil {
		return nil, badRequest(err)
	}
	id, err := a.player(req.Cookie)
	if err != nil {
		return nil, err
	}
	return a.heroUsageFor(id, req.Sort)
}

// heroUsageFor is get_hero_usage_list for player id.
func (a *Area) heroUsageFor(id storage.AccountID, sort string) (*wire.Array, error) {
	t, err := TotalsOf(a.sys.DB(), id)
	if err != nil {
		return nil, err
	}
	var list []usage
	var total int64
	for name, h := range t.HeroStats {
		if h.Matches == 0 {
			continue
		}
		list = append(list, usage{hero: name, uses: h.Matches, wins: h.Wins, losses: h.Losses})
		total += h.Matches
	}
	if len(list) == 0 {
		return done(wire.NewArray()), nil
	}
	for i := range list {
		u := &list[i]
		u.usePct = 100 * float64(u.uses) / float64(total)
		u.win = 100 * float64(u.wins) / float64(u.uses)
		u.lossPc = 100 * float64(u.losses) / float64(u.uses)
	}
	key := func(u usage) float64 { return u.usePct }
	switch sort {
	case "win":
		key = func(u usage) float64 { return u.win }
	case "loss":
		key = func(u usage) float64 { return u.lossPc }
	}
	slices.SortFunc(list, func(x, y usage) int {
		if c := cmp.Compare(key(y), key(x)); c != 0 {
			return c
		}
		return cmp.Compare(x.hero, y.hero)
	})
	entries := make([]string, len(list))
	pct := func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
	for i, u := range list {
		// A hero's name is whatever a game server submitted: without its
		// separators, so that one name cannot break the client's reading
		// of the list (as HistoryLine drops commas).
		entries[i] = strings.Join([]string{usageSeparators.Replace(u.hero), pct(u.usePct), pct(u.win), pct(u.lossPc),
			strconv.FormatInt(u.uses, 10), strconv.FormatInt(u.wins, 10), strconv.FormatInt(u.losses, 10)}, "|")
	}
	return done(wire.NewArray().Set("hero_usage", strings.Join(entries, "`")).Set("total_usage", total)), nil
}

func (a *Area) allHeroStats(_ context.Context, r *wire.Request) (*wire.Array, error) {
	var req cookieRequest
	if err := r.Decode(&req); err != nil {
		return nil, badRequest(err)
	}
	id, err := a.player(req.Cookie)
	if err != nil {
		return nil, err
	}
	return a.allHeroStatsFor(id)
}

// allHeroStatsFor is get_account_all_hero_stats for player id.
func (a *Area) allHeroStatsFor(id storage.AccountID) (*wire.Array, error) {
	t, err := TotalsOf(a.sys.DB(), id)
	if err != nil {
		return nil, err
	}
	heroes := wire.NewArray()
	for _, name := range sortedKeys(t.HeroStats) {
		h := t.HeroStats[name]
		if h.Matches == 0 {
			continue
		}
		heroes.Set(name, setCounters(wire.NewArray().Set("hero_id", int64(h.HeroId)).Set("cli_name", name), "ph_", h))
	}
	if heroes.Len() == 0 {
		return done(wire.NewArray()), nil
	}
	return done(wire.NewArray().Set("all_hero_stats", wire.NewArray().Set("public", heroes))), nil
}
