package matches

import (
	"context"
	"errors"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/accounts"
	pb "github.com/honmaster/masterserver/host/matches/internal/matchesrecpb"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/matches/matchesapi"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// The client's match calls (POST /client_requester.php, f in the query or
// the form), served from the recorded matches:
//
//   - get_match_stats (cookie, match_id): the match's summary, every
//     participant's submitted statistics and inventory, keyed by match
//     (and player) as the notes give. A match that is unknown, or started
//     but not recorded, answers HTTP 200 `error` => sentence with
//     vested_threshold 5 and 0 => false (the notes give no shape; the
//     client reads a failed lookup from it).
//   - match_history_overview (nickname, table, num): the player's most
//     recent recorded matches, newest first, as m0..mN comma strings
//     (match id, win flag, team, kills, deaths, assists, hero id,
//     seconds, map, date dd/mm/yyyy, hero cli name). num is how many
//     (1..history_length; absent or 0: all kept). The area keeps one
//     table, every recorded match: table is read but selects nothing. An
//     unknown nickname, or a player without a recorded match, answers
//     only vested_threshold 5 and 0 => true.
//
// The history is a record of the player (matches.history), written by the
// player's share of the matches.record effect in the same commit as the
// totals: at most [matches] history_length matches, the oldest dropped.
// Reading it never scans matches, so its cost does not grow with a
// player's matches.
var history = storage.NewAccountKeyspace("matches.history", storage.Proto[*pb.History]())

// Client functions of /client_requester.php the area serves.
const (
	FuncGetMatchStats          = "get_match_stats"
	FuncMatchHistoryOverview   = "match_history_overview"
	FuncGetHeroStats           = "get_hero_stats"
	FuncGetCampaignHeroStats   = "get_campaign_hero_stats"
	FuncGetHeroUsageList       = "get_hero_usage_list"
	FuncGetAccountAllHeroStats = "get_account_all_hero_stats"
)

// Bounds of what a recorded match keeps of a submission for
// get_match_stats: a server cannot grow a record without bound.
const (
	maxKeptFields    = 160 // per player, and of match_stats
	maxKeptNameLen   = 64
	maxKeptValueLen  = 256
	maxKeptBytes     = 8 << 10 // names and values, per player and of match_stats
	inventorySlots   = 6
	vestedThreshold  = 5
	historyDateStyle = "02/01/2006"
)

// keptFields are the fields of a submission kept with the match: those
// with a name of at most maxKeptNameLen bytes and a value of at most
// maxKeptValueLen, at most maxKeptFields of them and maxKeptBytes in all
// (in name order; a field past the bytes left is skipped). A 5v5 player's
// ~95 fields are about 2 KiB; a match of 63 players keeps at most about
// half a MiB.
func keptFields(in map[string]string) map[string]string {
	names := make([]string, 0, len(in))
	for k, v := range in {
		if k != "" && len(k) <= maxKeptNameLen && len(v) <= maxKeptValueLen {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	out := make(map[string]string, min(len(names), maxKeptFields))
	size := 0
	for _, k := range names {
		if len(out) == maxKeptFields {
			break
		}
		if size+len(k)+len(in[k]) > maxKeptBytes {
			continue
		}
		size += len(k) + len(in[k])
		out[k] = in[k]
	}
	return out
}

// keptInventory are a player's inventory slots 1..6 ("" empty; an item
// name longer than maxKeptNameLen is dropped).
func keptInventory(in map[string]string) []string {
	out := make([]string, inventorySlots)
	for i := range out {
		if v := in[strconv.Itoa(i+1)]; len(v) <= maxKeptNameLen {
			out[i] = v
		}
	}
	return out
}

// lenient reads a whole number 0..MaxInt32 of a field the area only
// shows (hero_id, secs); anything else is 0.
func lenient(s string) int32 {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return 0
	}
	return int32(n)
}

// addHero adds the match to the totals of the player's hero.
func addHero(t *pb.Totals, d *pb.Delta, res *pb.PlayerResult) {
	if d.Hero == "" {
		return
	}
	h := t.HeroStats[d.Hero]
	if h == nil {
		if len(t.HeroStats) >= maxHeroes {
			return
		}
		if t.HeroStats == nil {
			t.HeroStats = map[string]*pb.HeroTotals{}
		}
		h = &pb.HeroTotals{}
		t.HeroStats[d.Hero] = h
	}
	h.Matches += int64(d.Matches)
	h.Wins += int64(d.Wins)
	h.Losses += int64(d.Losses)
	h.Concedes += int64(d.Concedes)
	h.Discos += int64(d.Discos)
	h.Kills += int64(d.Kills)
	h.Deaths += int64(d.Deaths)
	h.Assists += int64(d.Assists)
	if res != nil {
		h.Secs += int64(res.Secs)
		if res.HeroId != 0 {
			h.HeroId = res.HeroId
		}
	}
}

// addHistory puts the match first in the player's history, dropping the
// oldest past the payload's history length.
func addHistory(tx *actors.Tx, d *pb.Delta, res *pb.PlayerResult, p *pb.Payload) error {
	if d.Matches == 0 {
		return nil
	}
	h, err := history.Get(tx.DB(), tx.ID(), "")
	if errors.Is(err, storage.ErrNotFound) {
		h, err = &pb.History{}, nil
	}
	if err != nil {
		return err
	}
	r := &pb.Recent{MatchId: p.MatchId, Win: d.Wins > 0, Loss: d.Losses > 0, Disco: d.Discos > 0, Kills: d.Kills, Deaths: d.Deaths,
		Assists: d.Assists, Map: p.Map, Recorded: p.Submitted, Hero: d.Hero}
	if res != nil {
		r.Team, r.HeroId, r.Secs = res.Team, res.HeroId, res.Secs
	}
	n := int(p.HistoryLength)
	if n <= 0 {
		n = 100
	}
	h.Recent = append([]*pb.Recent{r}, h.Recent...)
	if len(h.Recent) > n {
		h.Recent = h.Recent[:n]
	}
	return history.Put(tx, "", h)
}

// HistoryOf is a player's history, newest first (empty when none).
func HistoryOf(db *storage.DB, id storage.AccountID) ([]*pb.Recent, error) {
	h, err := history.Get(db, id, "")
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return h.Recent, nil
}

// historyRoutes are the client's functions that read recorded matches
// (with clientRoutes' server list and chat check, Routes serves them).
func (a *Area) historyRoutes() []server.Route {
	rt := func(fn string, h func(context.Context, *wire.Request) (*wire.Array, error), form any, summary, reply string) server.Route {
		return server.Route{Func: fn, Area: areaName, Fail: a.failRoute, Outcome: clientOutcome,
			Handler: func(ctx context.Context, r *wire.Request) server.Response {
				arr, err := h(ctx, r)
				if err != nil {
					return a.clientFail(fn, err)
				}
				return server.PHP(a.log, arr)
			},
			Doc: server.Doc{Summary: summary, Form: form, Reply: reply}}
	}
	const failure = " Failure: HTTP 200 `error` => sentence, `vested_threshold` 5, `0` => false (a bad cookie, an unknown match); 400 a malformed request; 5xx the server could not serve it."
	return []server.Route{
		rt(FuncGetMatchStats, a.getMatchStats, matchStatsRequest{},
			"A recorded match: its summary, every participant's submitted statistics and inventory.",
			"`match_summ` {MATCH: summary}, `match_player_stats` {MATCH: {ACCOUNT: fields}}, `inventory` {MATCH: {ACCOUNT: {account_id, match_id, slot_1..slot_6}}}, `vested_threshold` 5, `0` true (host/matches/history.go)."+failure),
		rt(FuncMatchHistoryOverview, a.historyOverview, historyRequest{},
			"A player's most recent recorded matches, newest first (at most [matches] history_length).",
			"`m0`..`mN`: \"match id,win,team,kills,deaths,assists,hero id,seconds,map,dd/mm/yyyy,hero\"; `vested_threshold` 5, `0` true. An unknown player or no match: only the last two."+failure),
		rt(FuncGetHeroStats, a.heroStats, heroStatsRequest{},
			"A player's totals with one hero (hero: cli name or hero id).",
			"`account_id`, `nickname`, `hero_id`, `cli_name`, `ph_games_played`, `ph_wins`, `ph_losses`, `ph_concedes`, `ph_discos`, `ph_herokills`, `ph_deaths`, `ph_heroassists`, `ph_secs`, `vested_threshold` 5, `0` true; nothing yet: `{vested_threshold:5, 0:true}`."+failure),
		rt(FuncGetCampaignHeroStats, a.campaignHeroStats, campaignRequest{},
			"A player's totals with one hero, as the campaign's hero statistics (every recorded match; is_casual 1 answers empty: no casual bucket is kept).",
			"`season` 0, `account_id`, `hero_id`, `cam_ph_games_played`, `cam_ph_wins`, `cam_ph_losses`, `cam_ph_concedes`, `cam_ph_discos`, `cam_ph_herokills`, `cam_ph_deaths`, `cam_ph_heroassists`, `cam_ph_secs`, `vested_threshold` 5, `0` true; nothing yet: `{vested_threshold:5, 0:true}`."+failure),
		rt(FuncGetHeroUsageList, a.heroUsage, usageRequest{},
			"The signed-in player's heroes by use (sort: use, win or loss).",
			"`hero_usage`: entries \"hero|use%|win%|loss%|uses|wins|losses\" joined by a backtick, `total_usage`, `vested_threshold` 5, `0` true; nothing yet: `{vested_threshold:5, 0:true}`."+failure),
		rt(FuncGetAccountAllHeroStats, a.allHeroStats, cookieRequest{},
			"The signed-in player's totals with every hero played.",
			"`all_hero_stats` {`public`: {HERO: {hero_id, cli_name, ph_...}}}, `vested_threshold` 5, `0` true; nothing yet: `{vested_threshold:5, 0:true}`."+failure),
	}
}

type matchStatsRequest struct {
	Cookie  string `form:"cookie,required" doc:"the player's session cookie"`
	MatchID string `form:"match_id,required" doc:"the match"`
}

type historyRequest struct {
	Nickname string `form:"nickname,required" doc:"the player (clan tag allowed)"`
	Table    string `form:"table" doc:"read, selects nothing (one table: every recorded match)"`
	Num      string `form:"num" doc:"how many matches (1..history_length; 0 or absent: all kept)"`
}

type cookieRequest struct {
	Cookie string `form:"cookie,required" doc:"the player's session cookie"`
}

// clientOutcome counts a client reply with an error entry as refused.
func clientOutcome(body []byte) string {
	if strings.HasPrefix(string(body), `a:3:{s:5:"error";`) {
		return server.OutcomeRefused
	}
	return outcome(body)
}

// clientRefusal is a refusal the client reads in a 200 reply.
type clientRefusal struct{ msg string }

func (e *clientRefusal) Error() string { return e.msg }

var (
	errClientCookie = &clientRefusal{"your session has ended: log in again"}
	errNoMatch      = &clientRefusal{"no recorded match has that id"}
)

// clientFail answers a client function's failure: a refusal in HTTP 200
// (error, vested_threshold, 0 => false), anything else as the area's
// failures (a malformed request 400, a server fault 5xx).
func (a *Area) clientFail(fn string, err error) server.Response {
	var cr *clientRefusal
	if errors.As(err, &cr) {
		arr := wire.NewArray().Set("error", cr.msg).Set("vested_threshold", vestedThreshold).Set(0, false)
		return server.PHP(a.log, arr)
	}
	a.m.refused(fn, err)
	return a.fail(err)
}

// player authenticates a client function's cookie.
func (a *Area) player(cookie string) (storage.AccountID, error) {
	sess, err := a.login.Authenticate(cookie)
	if err != nil {
		return 0, errClientCookie
	}
	return sess.AccountID, nil
}

// done ends a client reply: vested_threshold 5 and 0 => true.
func done(arr *wire.Array) *wire.Array {
	return arr.Set("vested_threshold", vestedThreshold).Set(0, true)
}

func (a *Area) getMatchStats(_ context.Context, r *wire.Request) (*wire.Array, error) {
	var req matchStatsRequest
	if err := r.Decode(&req); err != nil {
		return nil, badRequest(err)
	}
	if _, err := a.player(req.Cookie); err != nil {
		return nil, err
	}
	id, err := strconv.ParseUint(strings.TrimSpace(req.MatchID), 10, 32)
	if err != nil || id == 0 {
		return nil, errNoMatch
	}
	m, _, err := LoadMatch(a.sys.DB(), uint32(id))
	if errors.Is(err, storage.ErrNotFound) || err == nil && !m.Recorded {
		return nil, errNoMatch
	} else if err != nil {
		return nil, err
	}
	return done(a.matchStats(m)), nil
}

// matchStats is get_match_stats' reply for recorded match m.
func (a *Area) matchStats(m *pb.Match) *wire.Array {
	mid := int64(m.Id)
	summ := wire.NewArray()
	for _, k := range sortedKeys(m.Summary) {
		summ.Set(k, m.Summary[k])
	}
	at := time.Unix(m.Submitted, 0).UTC()
	fileName := m.Summary["file_name"]
	if fileName == "" {
		fileName = "M" + strconv.FormatUint(uint64(m.Id), 10) + ".honreplay"
	}
	summ.Set("match_id", mid).Set("server_id", int64(m.ServerId)).Set("map", m.Map).Set("mname", m.Name).
		Set("version", m.Version).Set("winning_team", int64(m.Winner)).Set("date", at.Format(historyDateStyle)).
		Set("time", at.Format("15:04:05")).Set("file_host", a.fileHost()).
		Set("file_path", "/replays/"+strconv.FormatUint(uint64(m.ServerId), 10)).Set("file_name", fileName)
	players, inv := wire.NewArray(), wire.NewArray()
	for _, p := range m.Results {
		aid := int64(p.AccountId)
		ps := wire.NewArray()
		for _, k := range sortedKeys(p.Fields) {
			ps.Set(k, p.Fields[k])
		}
		ps.Set("account_id", aid).Set("match_id", mid).Set("nickname", p.Nickname).Set("cli_name", p.Hero).
			Set("hero_id", int64(p.HeroId)).Set("team", int64(p.Team)).Set("wins", b2i(p.Win)).Set("losses", b2i(p.Loss)).
			Set("concedes", b2i(p.Concede)).Set("discos", b2i(p.Disco)).Set("herokills", int64(p.Kills)).
			Set("deaths", int64(p.Deaths)).Set("heroassists", int64(p.Assists))
		players.Set(aid, ps)
		slots := wire.NewArray().Set("account_id", aid).Set("match_id", mid)
		for i := range inventorySlots {
			v := ""
			if i < len(p.Inventory) {
				v = p.Inventory[i]
			}
			slots.Set("slot_"+strconv.Itoa(i+1), v)
		}
		inv.Set(aid, slots)
	}
	return wire.NewArray().Set("match_summ", wire.NewArray().Set(mid, summ)).
		Set("match_player_stats", wire.NewArray().Set(mid, players)).
		Set("inventory", wire.NewArray().Set(mid, inv))
}

// fileHost is the host of server.public_url: where replays would be
// fetched from (this server stores none).
func (a *Area) fileHost() string {
	if u, err := url.Parse(a.publicURL); err == nil && u.Host != "" {
		return u.Host
	}
	return a.publicURL
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// playerByNickname finds a player by nickname (as asked for, else with a
// leading clan tag dropped), through the storage's nickname index: the login may differ
// (an operator's --nickname, an import, a rename), and it used to be the
// login index that was asked, which showed nothing for such a player and
// another account's history for a nickname that is someone's login. The
// account spelling it exactly, else the one account spelling it in
// another case; ok false when none has it, or several share it (as the
// reports area finds a reported player).
func (a *Area) playerByNickname(nick string) (storage.AccountID, bool, error) {
	// The nickname as asked for first, and only when no account spells
	// it, with its clan tag dropped: a nickname may itself begin with
	// brackets ("[x]bob"), and one that several accounts spell is theirs,
	// not another's without the brackets, and names no one.
	nick = strings.TrimSpace(nick)
	ids, err := a.playersSpelling(nick)
	if bare := stripClanTag(nick); err == nil && len(ids) == 0 && bare != nick {
		ids, err = a.playersSpelling(bare)
	}
	if err != nil || len(ids) != 1 {
		return 0, false, err
	}
	return ids[0], true, nil
}

// playersSpelling are the accounts whose nickname is nick: those spelling
// it exactly, else those spelling it in another case.
func (a *Area) playersSpelling(nick string) ([]storage.AccountID, error) {
	nick = strings.TrimSpace(nick)
	if nick == "" || utf8.RuneCountInString(nick) > accounts.MaxNicknameRunes {
		return nil, nil
	}
	db := a.sys.DB()
	ids, err := db.NicknameAccounts(nick)
	if err != nil {
		return nil, err
	}
	var exact, folded []storage.AccountID
	for _, id := range ids {
		acct, err := db.AccountProfile(id)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			continue // deleted since the index was read
		case err != nil:
			return nil, err
		case acct.Nickname == nick:
			exact = append(exact, id)
		default:
			folded = append(folded, id)
		}
	}
	if len(exact) > 0 {
		return exact, nil
	}
	return folded, nil
}

func (a *Area) historyOverview(_ context.Context, r *wire.Request) (*wire.Array, error) {
	var req historyRequest
	if err := r.Decode(&req); err != nil {
		return nil, badRequest(err)
	}
	num := a.set.HistoryLength
	if s := strings.TrimSpace(req.Num); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, badRequest(errors.New("num must be a whole number"))
		}
		if n > 0 && n < num {
			num = n
		}
	}
	arr := wire.NewArray()
	id, ok, err := a.playerByNickname(req.Nickname)
	if err != nil {
		return nil, err
	}
	if !ok {
		return done(arr), nil
	}
	recent, err := HistoryOf(a.sys.DB(), id)
	if err != nil {
		return nil, err
	}
	for i, m := range recent {
		if i == num {
			break
		}
		arr.Set("m"+strconv.Itoa(i), HistoryLine(m))
	}
	return done(arr), nil
}

// HistoryLine is one match of match_history_overview: match id, win flag,
// team, kills, deaths, assists, hero id, seconds, map, date, hero (commas
// in the map and hero names dropped).
func HistoryLine(m *pb.Recent) string {
	clean := func(s string) string { return strings.ReplaceAll(s, ",", "") }
	return strings.Join([]string{strconv.FormatUint(uint64(m.MatchId), 10), strconv.FormatInt(b2i(m.Win), 10),
		strconv.Itoa(int(m.Team)), strconv.Itoa(int(m.Kills)), strconv.Itoa(int(m.Deaths)), strconv.Itoa(int(m.Assists)),
		strconv.Itoa(int(m.HeroId)), strconv.Itoa(int(m.Secs)), clean(m.Map),
		time.Unix(m.Recorded, 0).UTC().Format(historyDateStyle), clean(m.Hero)}, ",")
}

// maxRating bounds a rating of the session record (acc_pub_skill and
// the team ratings), in points: the game's ratings are about 1,000 to
// 2,500; a change that would cross 0 or maxRating stops there.
const maxRating = 10_000

// addAccountStats adds the match to the statistics of the account's own
// record (storage.Stats: what the login service builds the session
// record's infos[0] from), in the share's commit. Every match adds to
// games_played and a disconnect to discos; the rest goes to the match's
// bucket (matchesapi.Bucket, bucketOf): public to acc_games_played,
// acc_wins, acc_losses, acc_discos; ranked to the rnk_ and casual to the
// cs_ counterparts; MidWars to mid_games_played and mid_discos, RiftWars
// to rift_games_played and rift_discos (the record keeps no wins for
// those two). The delta's skill change moves acc_pub_skill, its team
// rating change rnk_amm_team_rating or cs_amm_team_rating (the plugin's
// checked decision puts a change only where the bucket has that rating),
// in thousandths, within 0..maxRating. An account's figures thus come
// from its recorded matches (added to what it was created with or an
// import brought: a new account's ratings start at 1500), exactly once,
// and a login reads them without a hook. A counter stops at the largest
// 32-bit value.
func addAccountStats(tx *actors.Tx, d *pb.Delta) {
	if d.Matches == 0 {
		return
	}
	st := &tx.Account().Stats
	add := func(p *int32, n int32) {
		if n > 0 {
			*p = int32(min(int64(*p)+int64(n), math.MaxInt32))
		}
	}
	rate := func(p *float64, milli int32) {
		if milli != 0 {
			*p = min(max(math.Round(*p*1000)+float64(milli), 0), maxRating*1000) / 1000
		}
	}
	add(&st.GamesPlayed, d.Matches)
	add(&st.Discos, d.Discos)
	switch matchesapi.Bucket(d.Bucket) {
	case matchesapi.BucketRanked:
		add(&st.RnkGames, d.Matches)
		add(&st.RnkWins, d.Wins)
		add(&st.RnkLosses, d.Losses)
		add(&st.RnkDiscos, d.Discos)
		rate(&st.RnkRating, d.TeamRating)
	case matchesapi.BucketCasual:
		add(&st.CSGames, d.Matches)
		add(&st.CSWins, d.Wins)
		add(&st.CSLosses, d.Losses)
		add(&st.CSDiscos, d.Discos)
		rate(&st.CSRating, d.TeamRating)
	case matchesapi.BucketMidWars:
		add(&st.MidGames, d.Matches)
		add(&st.MidDiscos, d.Discos)
	case matchesapi.BucketRiftWars:
		add(&st.RiftGames, d.Matches)
		add(&st.RiftDiscos, d.Discos)
	default: // public, and an effect recorded before buckets
		add(&st.AccGames, d.Matches)
		add(&st.AccWins, d.Wins)
		add(&st.AccLosses, d.Losses)
		add(&st.AccDiscos, d.Discos)
		rate(&st.AccPubSkill, d.PubSkill)
	}
}
