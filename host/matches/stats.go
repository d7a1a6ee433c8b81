package matches

import (
	"context"
	"errors"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/limit"
	pb "github.com/honmaster/masterserver/host/matches/internal/matchesrecpb"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/matches/matchesapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// ResubmissionKey is the key a game server computes for match id
// (wire.ResubmissionKey): public, so a resubmission is authenticated by
// the manager's login and password, and the key only checked.
func ResubmissionKey(matchID uint32) string { return wire.ResubmissionKey(int64(matchID)) }

// Refusals of a submission, by their reason in the metrics.
var (
	errForeign       = refuse(http.StatusForbidden, "foreign_server", "the match was started by another server")
	errUnknownMatch  = refuse(http.StatusNotFound, "unknown_match", "no match of this host has that id")
	errUnknownPlayer = refuse(http.StatusBadRequest, "unknown_player", "a player entry matches no participant of the match")
	// errAmbiguousPlayer: an entry's nickname is that of two participants
	// (nicknames are not unique) and its key names neither.
	errAmbiguousPlayer = refuse(http.StatusBadRequest, "ambiguous_player", "a player entry's nickname is that of several participants of the match, and its key names none of them")
	errBadKey          = refuse(http.StatusUnauthorized, "resubmission_key", "wrong resubmission key")
	errNoPlayers       = refuse(http.StatusBadRequest, "no_players", "the submission holds no player")
	// errDuplicate: the match is recorded already; answered OK, nothing
	// changes.
	errDuplicate = errors.New("match recorded already")
)

type statsReply struct {
	MatchInfo    string `php:"match_info"`
	MatchSumm    string `php:"match_summ"`
	MatchStats   string `php:"match_stats"`
	MatchHistory string `php:"match_history"`
}

type resubmitReply struct {
	MatchInfo    string `php:"match_info"`
	MatchSumm    string `php:"match_summ"`
	MatchStats   string `php:"match_stats"`
	MatchHistory string `php:"match_history"`
	MatchID      uint32 `php:"match_id"`
}

type submitRequest struct {
	F       string `form:"f,required" doc:"submit_stats or resubmit_stats"`
	Session string `form:"session" doc:"submit_stats: the game server's session"`
	Login   string `form:"login" doc:"resubmit_stats: the manager's login NAME:"`
	Pass    string `form:"pass" doc:"resubmit_stats: lowercase hex MD5 of the password"`
	Key     string `form:"resubmission_key" doc:"resubmit_stats: the match's resubmission key"`
	MatchID string `form:"match_stats[match_id]" doc:"the match (with the rest of match_stats[...], team_stats[...], player_stats[KEY][HERO][FIELD], inventory[...] and the optional items, abilities and frags)"`
}

// statsRequester serves /stats_requester.php.
func (a *Area) statsRequester(ctx context.Context, r *wire.Request) server.Response {
	fn := r.Query.Get("f")
	if fn == "" {
		fn = r.Form.Get("f")
	}
	var resp server.Response
	var err error
	switch fn {
	case FuncSubmitStats:
		resp, err = a.submit(ctx, r, false)
	case FuncResubmitStats:
		resp, err = a.submit(ctx, r, true)
	default:
		return a.unknownFunction()
	}
	if err != nil {
		a.m.refused(fn, err)
		return a.fail(err)
	}
	return resp
}

// submission is a statistics form as the area reads it.
type submission struct {
	matchID    uint32
	timePlayed int32
	players    []submittedPlayer
	bytes      int64
	// summary are the match_stats fields kept (keptFields).
	summary map[string]string
}

type submittedPlayer struct {
	key, hero, nickname       string
	team                      int32
	win, loss, concede, disco bool
	kills, deaths, assists    int32
	heroID, secs              int32
	// pubSkill and teamRating are pub_skill and amm_team_rating in
	// thousandths of a point; pubCount and teamCount pub_count and
	// amm_team_count.
	pubSkill, pubCount, teamRating, teamCount int32
	// fields and inventory are what get_match_stats answers (keptFields,
	// keptInventory).
	fields    map[string]string
	inventory []string
}

// readSubmission reads a statistics form (wire.DecodeStatsForm, within
// the [matches] limits): match_stats[match_id], match_stats[time_played]
// and, per player_stats[KEY][HERO][FIELD], the team, result, K/D/A and
// nickname, the skill and rating figures (pub_skill, pub_count,
// amm_team_rating, amm_team_count). A form beyond the limits, or
// malformed, is refused whole.
func (a *Area) readSubmission(form wire.Values) (*submission, *wire.StatsForm, error) {
	f, err := wire.DecodeStatsForm(form, wire.StatsFormLimits{MaxBytes: int64(a.set.MaxStatsBody), MaxValues: a.set.MaxStatsValues,
		MaxDepth: a.set.MaxBracketDepth, MaxKeyLen: a.set.MaxKeyLength})
	if err != nil {
		var fl *wire.FormLimitError
		if errors.As(err, &fl) {
			status := http.StatusBadRequest
			if fl.Reason == wire.RefusedTooLarge || fl.Reason == wire.RefusedTooManyValues {
				status = http.StatusRequestEntityTooLarge
			}
			return nil, nil, refuse(status, "form_"+string(fl.Reason), "%s", fl.Error())
		}
		return nil, nil, badRequest(err)
	}
	id, err := f.MatchID()
	if err != nil || id <= 0 || id > 1<<31-1 {
		return nil, nil, refuse(http.StatusBadRequest, "bad_request", "match_stats[match_id] is not a match id")
	}
	s := &submission{matchID: uint32(id), summary: keptFields(f.Match)}
	for name, vals := range form {
		for _, v := range vals {
			s.bytes += int64(len(name) + len(v) + 2)
		}
	}
	tp, _ := strconv.ParseInt(f.Match["time_played"], 10, 32)
	s.timePlayed = int32(max(tp, 0))
	winners := map[int32]bool{}
	for _, p := range f.Players {
		var bad error
		n := func(field string) int32 {
			text, sent := p.Fields[field]
			if !sent {
				return 0
			}
			x, err := strconv.ParseInt(text, 10, 64)
			if (err != nil || x < 0 || x > matchesapi.MaxCount) && bad == nil {
				bad = refuse(http.StatusBadRequest, "bad_counter", "player_stats[%s][%s][%s] = %q: want a whole number 0..%d",
					clip(p.Key, 32), clip(p.Hero, 64), field, clip(text, 32), matchesapi.MaxCount)
			}
			return int32(min(max(x, 0), matchesapi.MaxCount))
		}
		// change reads a skill or rating change: a decimal within
		// ±MaxRatingChange thousandths, rounded to thousandths (the
		// record's three places); absent or empty is no change.
		change := func(field string) int32 {
			text := strings.TrimSpace(p.Fields[field])
			if text == "" {
				return 0
			}
			x, err := strconv.ParseFloat(text, 64)
			milli := math.Round(x * 1000)
			if err != nil || math.IsNaN(milli) || math.Abs(milli) > matchesapi.MaxRatingChange {
				if bad == nil {
					bad = refuse(http.StatusBadRequest, "bad_rating", "player_stats[%s][%s][%s] = %q: want a decimal -%d..%d",
						clip(p.Key, 32), clip(p.Hero, 64), field, clip(text, 32), matchesapi.MaxRatingChange/1000, matchesapi.MaxRatingChange/1000)
				}
				return 0
			}
			return int32(milli)
		}
		sp := submittedPlayer{key: p.Key, nickname: p.Fields["nickname"], team: n("team"), win: n("wins") > 0, loss: n("losses") > 0,
			concede: n("concedes") > 0, disco: n("discos") > 0, kills: n("herokills"), deaths: n("deaths"), assists: n("heroassists"),
			heroID: lenient(p.Fields["hero_id"]), secs: lenient(p.Fields["secs"]), fields: keptFields(p.Fields), inventory: keptInventory(f.Inventory[p.Key]),
			pubSkill: change("pub_skill"), pubCount: n("pub_count"), teamRating: change("amm_team_rating"), teamCount: n("amm_team_count")}
		if bad != nil {
			return nil, nil, bad
		}
		if sp.win && sp.loss {
			return nil, nil, refuse(http.StatusBadRequest, "inconsistent_result", "player_stats[%s] both won and lost", clip(p.Key, 32))
		}
		if sp.win {
			winners[sp.team] = true
		}
		if len(p.Hero) <= matchesapi.MaxHeroName {
			sp.hero = p.Hero
		}
		s.players = append(s.players, sp)
	}
	if len(winners) > 1 {
		return nil, nil, refuse(http.StatusBadRequest, "inconsistent_result", "players of %d teams won the match", len(winners))
	}
	for _, sp := range s.players {
		if sp.loss && winners[sp.team] {
			return nil, nil, refuse(http.StatusBadRequest, "inconsistent_result", "team %d both won and lost", sp.team)
		}
	}
	return s, f, nil
}

// stripClanTag drops a leading "[TAG]" from a nickname.
func stripClanTag(n string) string {
	if strings.HasPrefix(n, "[") {
		if i := strings.IndexByte(n, ']'); i > 0 {
			return n[i+1:]
		}
	}
	return n
}

// resolve maps each player entry to a participant the match recorded: by
// its nickname (as sent, else, when that names no one, its clan tag
// stripped: a nickname may itself begin with brackets) when that names one
// participant, by key == account id among them
// when it names several (else the entry is refused as ambiguous), else by
// key == account id. A nickname "[x]bob" that names both a participant of
// that nickname and a bob is settled after the others: the one no other
// entry took, else the one its key names, else refused as ambiguous. The
// nickname comes first because the key may be a
// slot index (NEXUS) rather than an account id (korDen): in a community
// whose account ids are small, slot 3 is often some other participant's
// account id, and trusting the key would credit one player's result to
// another. An entry matching none, or a participant matched twice,
// refuses the submission: statistics are only ever counted for players the
// server connected to the match.
func resolve(m *pb.Match, players []submittedPlayer) ([]matchesapi.PlayerFacts, []*pb.PlayerResult, error) {
	if len(players) == 0 {
		return nil, nil, errNoPlayers
	}
	byID := map[uint32]*pb.Participant{}
	byNick := map[string][]*pb.Participant{}
	for _, p := range m.Participants {
		byID[p.AccountId] = p
		nick := strings.ToLower(p.Nickname)
		byNick[nick] = append(byNick[nick], p)
	}
	// Each entry's readings: the participants of its nickname as sent,
	// and, when it begins with a "[TAG]", those of the nickname without
	// it (a clan member sent with his tag).
	type reading struct {
		keyed       *pb.Participant
		named, bare []*pb.Participant
	}
	readings := make([]reading, len(players))
	for i, sp := range players {
		r := &readings[i]
		if id, err := strconv.ParseUint(sp.key, 10, 32); err == nil {
			r.keyed = byID[uint32(id)]
		}
		if sp.nickname != "" {
			r.named = byNick[strings.ToLower(sp.nickname)]
			if bare := stripClanTag(sp.nickname); bare != sp.nickname {
				r.bare = byNick[strings.ToLower(bare)]
			}
		}
	}
	used := map[uint32]bool{}
	parts := make([]*pb.Participant, len(players))
	take := func(i int, part *pb.Participant) error {
		if part == nil || used[part.AccountId] {
			return errUnknownPlayer
		}
		used[part.AccountId] = true
		parts[i] = part
		return nil
	}
	// First the entries with one reading: the nickname as sent, else
	// without its tag, else the key.
	for i, r := range readings {
		if len(r.named) > 0 && len(r.bare) > 0 {
			continue
		}
		cands := r.named
		if len(cands) == 0 {
			cands = r.bare
		}
		part, err := choose(cands, r.keyed)
		if err == nil {
			err = take(i, part)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	// Then those with two ("[x]bob" sent, and both a participant of that
	// nickname and a bob in the match): the one reading no entry above
	// took, else the one the key names; else the nickname alone cannot
	// tell, and a guess could credit one player's result to the other.
	// (A key is consulted only here: it may be a slot index, NEXUS's
	// reading, that happens to be some participant's account id.)
	taken := maps.Clone(used)
	for i, r := range readings {
		if parts[i] != nil || len(r.named) == 0 || len(r.bare) == 0 {
			continue
		}
		var free []*pb.Participant
		for _, p := range append(slices.Clone(r.named), r.bare...) {
			if !taken[p.AccountId] {
				free = append(free, p)
			}
		}
		part, err := choose(free, r.keyed)
		if err == nil {
			err = take(i, part)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	facts := make([]matchesapi.PlayerFacts, 0, len(players))
	results := make([]*pb.PlayerResult, 0, len(players))
	for i, sp := range players {
		part := parts[i]
		f := matchesapi.PlayerFacts{AccountID: part.AccountId, Team: sp.team, Win: sp.win, Loss: sp.loss, Concede: sp.concede,
			Disco: sp.disco, Kills: sp.kills, Deaths: sp.deaths, Assists: sp.assists, Hero: sp.hero,
			PubSkill: sp.pubSkill, PubCount: sp.pubCount, TeamRating: sp.teamRating, TeamCount: sp.teamCount}
		facts = append(facts, f)
		results = append(results, &pb.PlayerResult{AccountId: f.AccountID, Team: f.Team, Win: f.Win, Loss: f.Loss, Concede: f.Concede,
			Disco: f.Disco, Kills: f.Kills, Deaths: f.Deaths, Assists: f.Assists, Hero: f.Hero, Nickname: part.Nickname,
			HeroId: sp.heroID, Secs: sp.secs, Fields: sp.fields, Inventory: sp.inventory})
	}
	return facts, results, nil
}

// choose is the participant of an entry among cands (those its nickname
// names) or, when they name none, the one its key names (keyed, nil when
// none). Nicknames are not unique (nor unique in case): of several, only
// a key naming one of them tells which (errAmbiguousPlayer otherwise);
// anything else would credit one's result to the other.
func choose(cands []*pb.Participant, keyed *pb.Participant) (*pb.Participant, error) {
	switch {
	case len(cands) == 1:
		return cands[0], nil
	case len(cands) > 1:
		if keyed == nil || !slices.Contains(cands, keyed) {
			return nil, errAmbiguousPlayer
		}
		return keyed, nil
	}
	return keyed, nil
}

// submit serves submit_stats (by the session of the server that started
// the match) and resubmit_stats (by the host's manager: login, password,
// resubmission key, only for a match of that host).
func (a *Area) submit(ctx context.Context, r *wire.Request, resubmit bool) (server.Response, error) {
	// Per address first: nothing is read or checked past the budget.
	if ok, _ := a.submitsByAddress.Allow(limit.AddrKey(r.RemoteIP)); !ok {
		return server.Response{}, errTooManySubmits
	}
	var req submitRequest
	if err := r.Decode(&req); err != nil {
		return server.Response{}, badRequest(err)
	}
	var host storage.AccountID
	var serverID uint32
	if !resubmit {
		// The session before the statistics are read: a caller without
		// one costs no decoding.
		h, s, err := a.session(r, false)
		if err != nil {
			return server.Response{}, err
		}
		host, serverID = h, s.Id
		if ok, _ := a.submits.Allow(strconv.FormatUint(uint64(host), 10)); !ok {
			return server.Response{}, errTooManySubmits
		}
	}
	// The credentials as Decode read them (the form's, else the query's),
	// as hostOf routed the request by: the stats form's own copies are
	// the form's only, and a resubmission with them in the query was
	// routed to its host and then refused as a wrong login.
	sub, _, err := a.readSubmission(r.Form)
	if err != nil {
		return server.Response{}, err
	}
	if resubmit {
		name, _, err := splitLogin(req.Login, true)
		if err != nil {
			return server.Response{}, err
		}
		if host, err = a.authHost(ctx, name, req.Pass, r.RemoteIP); err != nil {
			return server.Response{}, err
		}
		if ok, _ := a.submits.Allow(strconv.FormatUint(uint64(host), 10)); !ok {
			return server.Response{}, errTooManySubmits
		}
		if !wire.ResubmissionKeyMatches(int64(sub.matchID), req.Key) {
			return server.Response{}, errBadKey
		}
	}
	m, err := matchRecs.Get(a.sys.DB(), host, storage.KeyUint32(sub.matchID))
	switch {
	case errors.Is(err, storage.ErrNotFound):
		if _, found, _ := hostOfMatch(a.sys.DB(), sub.matchID); found {
			return server.Response{}, errForeign
		}
		return server.Response{}, errUnknownMatch
	case err != nil:
		return server.Response{}, err
	case !resubmit && m.ServerId != serverID:
		return server.Response{}, errForeign
	}
	if !m.Recorded {
		if err := a.record(ctx, host, m, sub, resubmit); err != nil && !errors.Is(err, errDuplicate) {
			return server.Response{}, err
		}
	} else {
		a.m.duplicates.Inc()
	}
	if resubmit {
		return server.PHP(a.log, resubmitReply{"OK", "OK", "OK", "OK", sub.matchID}), nil
	}
	return server.PHP(a.log, statsReply{"OK", "OK", "OK", "OK"}), nil
}

// record records match m's statistics: the plugin's checked decision,
// then the effect whose first share (the host's) records the match and
// whose other shares add each participant's delta to the participant's
// totals, each through the participant's own actor, exactly once. It
// returns once the first share committed: the match is durable, and the
// other shares are applied (or resumed after a crash).
func (a *Area) record(ctx context.Context, host storage.AccountID, m *pb.Match, sub *submission, resubmit bool) error {
	facts, results, err := resolve(m, sub.players)
	if err != nil {
		return err
	}
	res, err := matchesapi.Tally.Decide(ctx, a.plugin, sdk.Call[matchesapi.TallyFacts]{Facts: matchesapi.TallyFacts{MatchID: m.Id,
		Players: facts, Bucket: bucketOf(m, sub.summary["map"])}})
	if err != nil {
		return err
	}
	p := &pb.Payload{Host: uint32(host), MatchId: m.Id, ServerId: m.ServerId, Submitted: a.now().Unix(), TimePlayed: sub.timePlayed,
		StatsBytes: sub.bytes, Resubmitted: resubmit, Results: results, Map: m.Map, Summary: sub.summary,
		HistoryLength: int32(a.set.HistoryLength)}
	participants := []storage.AccountID{host}
	for _, d := range res.Decision.Deltas {
		p.Deltas = append(p.Deltas, &pb.Delta{AccountId: d.AccountID, Matches: d.Matches, Wins: d.Wins, Losses: d.Losses,
			Concedes: d.Concedes, Discos: d.Discos, Kills: d.Kills, Deaths: d.Deaths, Assists: d.Assists, Hero: d.Hero,
			Bucket: int32(d.Bucket), PubSkill: d.PubSkill, TeamRating: d.TeamRating})
		if storage.AccountID(d.AccountID) == host {
			continue // the host's share applies its own delta
		}
		// A player deleted since the match keeps nothing (as a deleted
		// account keeps nothing of an effect).
		if ok, err := a.sys.DB().AccountExists(storage.AccountID(d.AccountID)); err != nil {
			return err
		} else if ok {
			participants = append(participants, storage.AccountID(d.AccountID))
		}
	}
	for _, r := range results {
		if r.Win {
			p.Winner = r.Team
		}
	}
	payload, err := proto.Marshal(p)
	if err != nil {
		return err
	}
	if _, err := recordEffect.Start(ctx, a.sys, payload, participants...); err != nil {
		return err
	}
	a.m.recorded.Inc()
	a.m.statsBytes.Add(float64(sub.bytes))
	return nil
}

// Arranged match types of start_game's arrangedmatchtype that decide a
// bucket (set_online's "new" is the type + 1; the notes, section 1).
const (
	arrangedMatchmaking = 1
	arrangedMidWars     = 4
	arrangedRiftWars    = 7
)

// bucketOf is the statistics bucket match m counts in: its map as
// start_game gave it (else the submitted match_stats[map], submitted)
// and start_game's arranged match type and casual flag. The notes' one
// master that keeps buckets (NEXUS) counts MidWars, RiftWars, ranked
// "caldavar" as normal and "caldavar_old" as casual, everything else as
// public; a public game is played on caldavar too, so here "ranked" is
// the matchmaking type:
//
//   - map midwars, or the MidWars type: MidWars (mid_*);
//   - map riftwars, or the RiftWars type: RiftWars (rift_*);
//   - matchmaking on caldavar_old, or a casual matchmaking match on
//     caldavar: casual (cs_*);
//   - matchmaking on caldavar: ranked (rnk_*);
//   - everything else (public games, unranked matchmaking, bot and
//     custom games, other maps): public (acc_*).
func bucketOf(m *pb.Match, submitted string) matchesapi.Bucket {
	mp := m.Map
	if mp == "" {
		mp = submitted
	}
	mp = strings.ToLower(strings.TrimSpace(mp))
	mm := m.Arranged == arrangedMatchmaking
	switch {
	case mp == "midwars" || m.Arranged == arrangedMidWars:
		return matchesapi.BucketMidWars
	case mp == "riftwars" || m.Arranged == arrangedRiftWars:
		return matchesapi.BucketRiftWars
	case mm && (mp == "caldavar_old" || mp == "caldavar" && m.Casual):
		return matchesapi.BucketCasual
	case mm && mp == "caldavar":
		return matchesapi.BucketRanked
	}
	return matchesapi.BucketPublic
}

// recordEffect is the multi-account effect of a recorded match (see
// docs/effects.md): share 0, the game-host account's, records the match
// (refused, with nothing written, when it is recorded already or no
// longer the submitting server's); each other share adds its account's
// delta to its totals. Never rename it: the name is stored.
var recordEffect = actors.RegisterEffect("matches.record", applyRecord)

func applyRecord(tx *actors.Tx, e *storage.Effect, share int) error {
	var p pb.Payload
	if err := proto.Unmarshal(e.Payload, &p); err != nil {
		return err
	}
	if share == 0 {
		m, err := matchRecs.Get(tx.DB(), tx.ID(), storage.KeyUint32(p.MatchId))
		if err != nil {
			return err
		}
		if m.Recorded {
			return errDuplicate
		}
		if m.ServerId != p.ServerId {
			return errForeign
		}
		m.Recorded, m.Submitted, m.Winner, m.TimePlayed, m.Results, m.StatsBytes, m.Resubmitted, m.Summary =
			true, p.Submitted, p.Winner, p.TimePlayed, p.Results, p.StatsBytes, p.Resubmitted, p.Summary
		if err := matchRecs.Put(tx, storage.KeyUint32(m.Id), m); err != nil {
			return err
		}
	}
	for _, d := range p.Deltas {
		if storage.AccountID(d.AccountId) == tx.ID() {
			var res *pb.PlayerResult
			for _, r := range p.Results {
				if r.AccountId == d.AccountId {
					res = r
				}
			}
			return addDelta(tx, d, res, &p)
		}
	}
	return nil
}

// maxHeroes bounds the heroes one player's totals count (the game has
// about 140; a server cannot grow a record without bound by inventing
// names).
const maxHeroes = 512

// addDelta adds d to the account's totals, its hero's totals, and the
// match to the account's history (res: the player's submitted results,
// nil in an effect recorded before results were kept per player), in
// one commit.
func addDelta(tx *actors.Tx, d *pb.Delta, res *pb.PlayerResult, p *pb.Payload) error {
	t, err := totals.Get(tx.DB(), tx.ID(), "")
	if errors.Is(err, storage.ErrNotFound) {
		t, err = &pb.Totals{}, nil
	}
	if err != nil {
		return err
	}
	t.Matches += int64(d.Matches)
	t.Wins += int64(d.Wins)
	t.Losses += int64(d.Losses)
	t.Concedes += int64(d.Concedes)
	t.Discos += int64(d.Discos)
	t.Kills += int64(d.Kills)
	t.Deaths += int64(d.Deaths)
	t.Assists += int64(d.Assists)
	if _, known := t.Heroes[d.Hero]; d.Hero != "" && (known || len(t.Heroes) < maxHeroes) {
		if t.Heroes == nil {
			t.Heroes = map[string]int64{}
		}
		t.Heroes[d.Hero]++
	}
	addHero(t, d, res)
	if res != nil {
		t.Secs += int64(res.Secs)
	}
	if err := totals.Put(tx, "", t); err != nil {
		return err
	}
	addAccountStats(tx, d)
	return addHistory(tx, d, res, p)
}
