package matches_test

import (
	"math/rand/v2"
	"net/url"
	"strconv"
	"testing"

	"github.com/honmaster/masterserver/host/matches"
	"github.com/honmaster/masterserver/host/matches/matchsim"
	"github.com/honmaster/masterserver/plugins/matches/matchesapi"
)

// TestAnEntryIsCreditedToTheNicknameItNames: player_stats[KEY] may be keyed
// by slot (NEXUS) rather than by account id (korDen). In a community with
// small account ids a slot is often another participant's account id: the
// entry's nickname decides. Before, the key won, and the two players'
// results were silently swapped.
func TestAnEntryIsCreditedToTheNicknameItNames(t *testing.T) {
	f := newFixture(t, 2)
	ps := f.players
	sess, _, mid := f.startedMatch()
	v := url.Values{"session": {sess}, "match_stats[match_id]": {mid}}
	set := func(key uint32, nick, team, win, loss, kills string) {
		k := "player_stats[" + strconv.Itoa(int(key)) + "][Hero_Pyromancer]"
		v.Set(k+"[nickname]", nick)
		v.Set(k+"[team]", team)
		v.Set(k+"[wins]", win)
		v.Set(k+"[losses]", loss)
		v.Set(k+"[herokills]", kills)
	}
	// Each entry keyed by the other player's account id.
	set(ps[1].id, "[CLAN]"+ps[0].login, "1", "1", "0", "9")
	set(ps[0].id, ps[1].login, "2", "0", "1", "1")
	if code, _, body := f.call(matches.PathStatsRequester, "submit_stats", v); code != 200 {
		t.Fatalf("submit_stats: %d %s", code, body)
	}
	if got := f.totals(ps[0].id); got.Wins != 1 || got.Losses != 0 || got.Kills != 9 {
		t.Errorf("%s (won with 9 kills): %+v", ps[0].login, got)
	}
	if got := f.totals(ps[1].id); got.Wins != 0 || got.Losses != 1 || got.Kills != 1 {
		t.Errorf("%s (lost with 1 kill): %+v", ps[1].login, got)
	}
}

// TestAMatchOfTheMostPlayersIsRecorded: a match of max_participants (63)
// players, each with the ~95 fields a game server sends (matchsim), is
// recorded and counted for every player. Before, the recorded match's
// effect payload was bounded at 64 KiB, and a match of more than about 35
// players was refused with a 500 on every try and resubmission.
func TestAMatchOfTheMostPlayersIsRecorded(t *testing.T) {
	f := newFixture(t, matchesapi.MaxPlayers)
	sess, sid, mid := f.startedMatch()
	var ids []int64
	var nicks []string
	for _, p := range f.players {
		ids = append(ids, int64(p.id))
		nicks = append(nicks, p.login)
	}
	m, _ := strconv.ParseInt(mid, 10, 64)
	s, _ := strconv.ParseInt(sid, 10, 64)
	form := matchsim.NewMatch(rand.New(rand.NewPCG(1, 2)), m, s, ids, nicks).Form()
	form.Set("session", sess)
	if code, _, body := f.call(matches.PathStatsRequester, "submit_stats", form); code != 200 {
		t.Fatalf("a %d-player match (%d values): %d %s", len(f.players), matchsim.CountValues(form), code, body)
	}
	for _, p := range f.players {
		if got := f.totals(p.id); got.Matches != 1 {
			t.Fatalf("%s's totals count %d matches, want 1", p.login, got.Matches)
		}
	}
}
