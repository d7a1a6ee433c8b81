// Package matchesapi is the contract of the matches area: what the host
// (host/matches) and the area's plugin (plugins/matches) share.
//
// When a game server submits a match's statistics, the host resolves each
// player entry to a participant the match recorded (c_conn), and asks the
// plugin what each participant's totals gain from the match: the Tally
// decision. The facts are what the server submitted (win, loss, concede,
// disconnect, kills, deaths, assists, hero, the skill and rating figures)
// and the match's statistics bucket; the decision is one Delta per
// participant. The host checks the decision against the facts (Check:
// exactly one match played, a win or loss only where the facts say so,
// the submitted K/D/A, the submitted hero, the match's bucket, a rating
// change only as the facts give it) and applies it through each
// participant's own actor, exactly once (host/matches).
//
// # Buckets and ratings
//
// The session record keeps its statistics in buckets (service spec,
// infos[0]): public (acc_*), ranked (rnk_*), casual (cs_*), MidWars
// (mid_*) and RiftWars (rift_*). The host puts each match in one bucket
// (host/matches: by its arranged match type and map) and the match counts
// there. The game server submits, per player, pub_skill and pub_count,
// amm_team_rating and amm_team_count; no known master computes a rating
// itself (the notes, section 2), so the area reads them as the server's
// own rating changes: pub_skill is the change of the player's public
// skill (acc_pub_skill) when pub_count is 1 and the match counts as
// public; amm_team_rating that of the bucket's team rating
// (rnk_amm_team_rating or cs_amm_team_rating) when amm_team_count is 1
// and the match counts as ranked or casual. Any other count, or any other
// bucket, changes no rating. A change is at most MaxRatingChange
// thousandths either way; the host refuses a submission beyond it.
package matchesapi

import (
	"fmt"

	"github.com/honmaster/masterserver/plugins/matches/matchesapi/internal/matchespb"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Area is the area's name everywhere: [plugins.matches], the [matches]
// settings, "honmaster plugin matches", logs and the decision's name.
var Area = sdk.RegisterArea("matches")

// Bounds of the facts: a match has at most MaxPlayers players (an effect
// holds the host account and 63 players), each count 0..MaxCount, a hero
// name at most MaxHeroName bytes.
const (
	MaxPlayers  = 63
	MaxCount    = 100_000
	MaxHeroName = 64
)

// MaxRatingChange bounds a submitted skill or rating change, in
// thousandths of a point (500 points; a match moves a rating by tens).
const MaxRatingChange = 500_000

// Bucket is the statistics bucket a match counts in.
type Bucket int32

// The buckets, as the session record's field prefixes name them.
const (
	BucketPublic   Bucket = iota // acc_*: every match not in another bucket
	BucketRanked                 // rnk_*: ranked matchmaking (caldavar)
	BucketCasual                 // cs_*: casual matchmaking (caldavar_old)
	BucketMidWars                // mid_*
	BucketRiftWars               // rift_*
	numBuckets
)

// String is the bucket's field prefix.
func (b Bucket) String() string {
	switch b {
	case BucketPublic:
		return "acc"
	case BucketRanked:
		return "rnk"
	case BucketCasual:
		return "cs"
	case BucketMidWars:
		return "mid"
	case BucketRiftWars:
		return "rift"
	}
	return fmt.Sprintf("bucket(%d)", int32(b))
}

// Rated reports whether the bucket has a team rating (ranked, casual).
func (b Bucket) Rated() bool { return b == BucketRanked || b == BucketCasual }

// PlayerFacts are one participant's submitted results.
type PlayerFacts struct {
	AccountID                 uint32
	Team                      int32
	Win, Loss, Concede, Disco bool
	Kills, Deaths, Assists    int32
	Hero                      string // cli name; "" when none
	// PubSkill and TeamRating are the submitted pub_skill and
	// amm_team_rating in thousandths of a point (-MaxRatingChange..
	// MaxRatingChange); PubCount and TeamCount the submitted pub_count
	// and amm_team_count (0..MaxCount).
	PubSkill, PubCount, TeamRating, TeamCount int32
}

// TallyFacts are the facts of one recorded match.
type TallyFacts struct {
	MatchID uint32
	Players []PlayerFacts
	Bucket  Bucket
}

// Delta is what one participant's totals gain.
type Delta struct {
	AccountID                               uint32
	Matches, Wins, Losses, Concedes, Discos int32
	Kills, Deaths, Assists                  int32
	Hero                                    string // its count gains one; "" none
	// Bucket is where the counts go; PubSkill the change of the public
	// skill, TeamRating that of the bucket's team rating, in thousandths
	// of a point.
	Bucket               Bucket
	PubSkill, TeamRating int32
}

// TallyDecision has one Delta per player of the facts, in their order.
type TallyDecision struct {
	Deltas []Delta
}

// Tally is the area's one decision.
var Tally = sdk.NewDecision(sdk.DecisionDef[TallyFacts, TallyDecision]{
	Area: Area, Name: "tally", Version: 2, // 2: buckets and ratings
	Facts: sdk.ProtoCodec(factsToProto, factsFromProto, func() *matchespb.TallyFacts { return new(matchespb.TallyFacts) }),
	Result: sdk.ProtoCodec(decisionToProto, decisionFromProto,
		func() *matchespb.TallyDecision { return new(matchespb.TallyDecision) }),
	CheckFacts: CheckFacts,
	Check:      Check,
})

func factsToProto(f TallyFacts) *matchespb.TallyFacts {
	m := &matchespb.TallyFacts{MatchId: f.MatchID, Players: make([]*matchespb.PlayerFacts, len(f.Players)), Bucket: int32(f.Bucket)}
	for i, p := range f.Players {
		m.Players[i] = &matchespb.PlayerFacts{AccountId: p.AccountID, Team: p.Team, Win: p.Win, Loss: p.Loss,
			Concede: p.Concede, Disco: p.Disco, Kills: p.Kills, Deaths: p.Deaths, Assists: p.Assists, Hero: p.Hero,
			PubSkill: p.PubSkill, PubCount: p.PubCount, TeamRating: p.TeamRating, TeamCount: p.TeamCount}
	}
	return m
}

func factsFromProto(m *matchespb.TallyFacts) (TallyFacts, error) {
	f := TallyFacts{MatchID: m.GetMatchId(), Players: make([]PlayerFacts, len(m.GetPlayers())), Bucket: Bucket(m.GetBucket())}
	for i, p := range m.GetPlayers() {
		f.Players[i] = PlayerFacts{AccountID: p.GetAccountId(), Team: p.GetTeam(), Win: p.GetWin(), Loss: p.GetLoss(),
			Concede: p.GetConcede(), Disco: p.GetDisco(), Kills: p.GetKills(), Deaths: p.GetDeaths(), Assists: p.GetAssists(), Hero: p.GetHero(),
			PubSkill: p.GetPubSkill(), PubCount: p.GetPubCount(), TeamRating: p.GetTeamRating(), TeamCount: p.GetTeamCount()}
	}
	return f, nil
}

func decisionToProto(d TallyDecision) *matchespb.TallyDecision {
	m := &matchespb.TallyDecision{Deltas: make([]*matchespb.Delta, len(d.Deltas))}
	for i, x := range d.Deltas {
		m.Deltas[i] = &matchespb.Delta{AccountId: x.AccountID, Matches: x.Matches, Wins: x.Wins, Losses: x.Losses,
			Concedes: x.Concedes, Discos: x.Discos, Kills: x.Kills, Deaths: x.Deaths, Assists: x.Assists, Hero: x.Hero,
			Bucket: int32(x.Bucket), PubSkill: x.PubSkill, TeamRating: x.TeamRating}
	}
	return m
}

func decisionFromProto(m *matchespb.TallyDecision) (TallyDecision, error) {
	d := TallyDecision{Deltas: make([]Delta, len(m.GetDeltas()))}
	for i, x := range m.GetDeltas() {
		d.Deltas[i] = Delta{AccountID: x.GetAccountId(), Matches: x.GetMatches(), Wins: x.GetWins(), Losses: x.GetLosses(),
			Concedes: x.GetConcedes(), Discos: x.GetDiscos(), Kills: x.GetKills(), Deaths: x.GetDeaths(), Assists: x.GetAssists(), Hero: x.GetHero(),
			Bucket: Bucket(x.GetBucket()), PubSkill: x.GetPubSkill(), TeamRating: x.GetTeamRating()}
	}
	return d, nil
}

// CheckFacts refuses malformed facts: no match, no or too many players, a
// player twice or without an account, counts out of 0..MaxCount, a hero
// name too long, a skill or rating change beyond MaxRatingChange, an
// unknown bucket, a player who both won and lost, winners on more than
// one team, a team that both won and lost.
func CheckFacts(f TallyFacts) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: matches.tally: %s", sdk.ErrInvalidFacts, fmt.Sprintf(format, args...))
	}
	if f.MatchID == 0 {
		return bad("no match id")
	}
	if len(f.Players) == 0 || len(f.Players) > MaxPlayers {
		return bad("%d players, want 1..%d", len(f.Players), MaxPlayers)
	}
	if f.Bucket < 0 || f.Bucket >= numBuckets {
		return bad("unknown bucket %d", int32(f.Bucket))
	}
	seen := make(map[uint32]bool, len(f.Players))
	winners := map[int32]bool{}
	for _, p := range f.Players {
		switch {
		case p.AccountID == 0:
			return bad("a player without an account")
		case seen[p.AccountID]:
			return bad("account %d twice", p.AccountID)
		case !inRange(p.Kills) || !inRange(p.Deaths) || !inRange(p.Assists):
			return bad("account %d: kills/deaths/assists %d/%d/%d out of 0..%d", p.AccountID, p.Kills, p.Deaths, p.Assists, MaxCount)
		case !inRange(p.PubCount) || !inRange(p.TeamCount):
			return bad("account %d: pub_count/amm_team_count %d/%d out of 0..%d", p.AccountID, p.PubCount, p.TeamCount, MaxCount)
		case !changeInRange(p.PubSkill) || !changeInRange(p.TeamRating):
			return bad("account %d: pub_skill/amm_team_rating change %d/%d thousandths beyond %d", p.AccountID, p.PubSkill, p.TeamRating, MaxRatingChange)
		case len(p.Hero) > MaxHeroName:
			return bad("account %d: hero name of %d bytes", p.AccountID, len(p.Hero))
		case p.Win && p.Loss:
			return bad("account %d both won and lost", p.AccountID)
		}
		seen[p.AccountID] = true
		if p.Win {
			winners[p.Team] = true
		}
	}
	if len(winners) > 1 {
		return bad("players of %d teams won", len(winners))
	}
	for _, p := range f.Players {
		if p.Loss && winners[p.Team] {
			return bad("team %d both won and lost", p.Team)
		}
	}
	return nil
}

func inRange(n int32) bool { return n >= 0 && n <= MaxCount }

func changeInRange(n int32) bool { return n >= -MaxRatingChange && n <= MaxRatingChange }

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// Expected is the delta the facts of one player of a match in bucket b
// call for: one match played in b, a win, loss, concede or disconnect
// each where the facts say so, the submitted kills, deaths and assists,
// one game of the hero, the submitted public skill change when pub_count
// is 1 and b is public, and the submitted team rating change when
// amm_team_count is 1 and b is ranked or casual.
func Expected(b Bucket, p PlayerFacts) Delta {
	d := Delta{AccountID: p.AccountID, Matches: 1, Wins: b2i(p.Win), Losses: b2i(p.Loss), Concedes: b2i(p.Concede),
		Discos: b2i(p.Disco), Kills: p.Kills, Deaths: p.Deaths, Assists: p.Assists, Hero: p.Hero, Bucket: b}
	if b == BucketPublic && p.PubCount == 1 {
		d.PubSkill = p.PubSkill
	}
	if b.Rated() && p.TeamCount == 1 {
		d.TeamRating = p.TeamRating
	}
	return d
}

// Check is the host's check of a decision: one delta per player, in
// order, each equal to Expected of its player's facts. A plugin decides
// how a match counts only within what the facts say; it can neither
// invent a win, nor count a match twice or in another bucket, nor move a
// rating the server did not.
func Check(f TallyFacts, d TallyDecision) error {
	if len(d.Deltas) != len(f.Players) {
		return fmt.Errorf("%w: %d deltas for %d players", sdk.ErrInvalidDecision, len(d.Deltas), len(f.Players))
	}
	for i, p := range f.Players {
		if want := Expected(f.Bucket, p); d.Deltas[i] != want {
			return fmt.Errorf("%w: account %d: delta %+v, the facts call for %+v", sdk.ErrInvalidDecision, p.AccountID, d.Deltas[i], want)
		}
	}
	return nil
}
