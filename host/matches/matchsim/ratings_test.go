package matchsim_test

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/matches/matchsim"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// statsCounters are the session record's counters (infos[0]) a match
// can change; statsRatings its ratings (decimals, 3 places).
var (
	statsCounters = []string{"games_played", "discos", "acc_games_played", "acc_wins", "acc_losses", "acc_discos",
		"rnk_games_played", "rnk_wins", "rnk_losses", "rnk_discos", "cs_games_played", "cs_wins", "cs_losses", "cs_discos",
		"mid_games_played", "mid_discos", "rift_games_played", "rift_discos", "cam_games_played", "cam_discos"}
	statsRatings = []string{"acc_pub_skill", "rnk_amm_team_rating", "cs_amm_team_rating"}
)

// recordStats logs p in and reads its session record's statistics
// (infos[0]): the counters and ratings, ratings in thousandths.
func recordStats(t *testing.T, w *world, p *player) map[string]int64 {
	t.Helper()
	sess, err := w.c.Login(context.Background(), p.login, password)
	if err != nil {
		t.Fatal(err)
	}
	infos, _ := sess.Record.Array("infos")
	st, _ := infos.Array(0)
	if st == nil {
		t.Fatalf("session record of %s has no infos[0]: %v", p.login, sess.Record)
	}
	out := map[string]int64{}
	for _, k := range statsCounters {
		n, ok := matchsim.IntOf(st, k)
		if !ok {
			t.Fatalf("session record of %s: %s is not a whole number", p.login, k)
		}
		out[k] = n
	}
	for _, k := range statsRatings {
		s, _ := st.String(k)
		x, err := strconv.ParseFloat(s, 64)
		if i := strings.IndexByte(s, '.'); err != nil || i < 0 || len(s)-i != 4 {
			t.Fatalf("session record of %s: %s = %q, want a decimal with 3 places", p.login, k, s)
		}
		out[k] = int64(math.Round(x * 1000))
	}
	return out
}

// TestRatingsEndToEnd: the session record's bucketed statistics and
// ratings come from the recorded matches. Matches of every bucket
// (public, ranked, casual by map and by flag, MidWars by map, RiftWars by
// arranged type) each count in their bucket only; the submitted skill or
// team rating change moves the player's rating where its count is 1 and
// the bucket has that rating, and nothing else; a change beyond the bound
// or not a number refuses the submission with nothing counted; a second
// submission of every match changes nothing.
func TestRatingsEndToEnd(t *testing.T) {
	w, _ := startWorld(t, nil)
	ratingsSequence(t, w)
}

// TestRatingsOnPostgres is TestRatingsEndToEnd over PostgreSQL (skipped
// without HONMASTER_TEST_POSTGRES_URL; .ci/postgres sets it).
func TestRatingsOnPostgres(t *testing.T) {
	pg := storagetest.PostgresURL(t)
	w, _ := startWorld(t, func(c *config.Config) {
		c.Storage.Backend, c.Storage.Postgres.URL = config.BackendPostgres, pg
	})
	ratingsSequence(t, w)
}

func ratingsSequence(t *testing.T, w *world) {
	ctx := context.Background()
	g := w.server(t)
	ps := w.players(t, 2)
	model := map[int64]map[string]int64{}
	for _, p := range ps {
		model[p.id] = recordStats(t, w, p)
		// a new account's ratings start at 1500
		for _, k := range statsRatings {
			if model[p.id][k] != 1_500_000 {
				t.Fatalf("new account %s: %s = %d thousandths, want 1500.000", p.login, k, model[p.id][k])
			}
		}
	}
	type bucket struct {
		name, mp string
		arranged int
		casual   bool
		prefix   string // of the counters
		rating   string // moved by player 0's counted change; "" none
		wl       bool   // the bucket counts wins and losses
	}
	buckets := []bucket{
		{"public", "caldavar", 0, false, "acc", "acc_pub_skill", true},
		{"ranked", "caldavar", 1, false, "rnk", "rnk_amm_team_rating", true},
		{"casual map", "caldavar_old", 1, false, "cs", "cs_amm_team_rating", true},
		{"casual flag", "caldavar", 1, true, "cs", "cs_amm_team_rating", true},
		{"midwars map", "midwars", 0, false, "mid", "", false},
		{"riftwars type", "grimms_crossing", 7, false, "rift", "", false},
		{"unranked matchmaking", "caldavar", 6, false, "acc", "acc_pub_skill", true},
	}
	set := func(f url.Values, p matchsim.Player, field, v string) {
		f.Set("player_stats["+strconv.FormatInt(p.AccountID, 10)+"]["+p.Hero+"]["+field+"]", v)
	}
	var matches []*matchsim.Match
	var forms []url.Values
	for i, b := range buckets {
		g.Map, g.Arranged, g.Casual = b.mp, b.arranged, b.casual
		m := start(t, g, ps, uint64(40+i))
		f := m.Form()
		// player 0: both changes counted (pub_count, amm_team_count 1);
		// player 1: both sent with counts 0, which count nothing.
		set(f, m.Players[0], "pub_skill", "12.345")
		set(f, m.Players[0], "pub_count", "1")
		set(f, m.Players[0], "amm_team_rating", "-7.5")
		set(f, m.Players[0], "amm_team_count", "1")
		set(f, m.Players[1], "pub_skill", "30")
		set(f, m.Players[1], "pub_count", "0")
		set(f, m.Players[1], "amm_team_rating", "9")
		set(f, m.Players[1], "amm_team_count", "0")
		if i == 0 {
			// Absurd figures refuse the whole submission, counting nothing.
			for field, v := range map[string]string{"pub_skill": "600", "amm_team_rating": "-500.001", "pub_count": "-1"} {
				bad := url.Values{}
				for k, vs := range f {
					bad[k] = vs
				}
				set(bad, m.Players[1], field, v)
				_, err := g.SubmitStats(ctx, bad)
				if rep, refused := matchsim.Refused(err); !refused || rep.Status != 400 {
					t.Fatalf("%s = %s: %v, want a refusal (400)", field, v, err)
				}
			}
			bad := url.Values{}
			for k, vs := range f {
				bad[k] = vs
			}
			set(bad, m.Players[0], "amm_team_rating", "NaN")
			if _, err := g.SubmitStats(ctx, bad); err == nil {
				t.Fatal("amm_team_rating NaN was accepted")
			}
		}
		if _, err := g.SubmitStats(ctx, f); err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		matches, forms = append(matches, m), append(forms, f)
		for j, p := range m.Players {
			e := model[p.AccountID]
			e["games_played"]++
			e[b.prefix+"_games_played"]++
			if p.Disco {
				e["discos"]++
				e[b.prefix+"_discos"]++
			}
			if b.wl && p.Team == m.Winner {
				e[b.prefix+"_wins"]++
			} else if b.wl {
				e[b.prefix+"_losses"]++
			}
			if j == 0 && b.rating == "acc_pub_skill" {
				e[b.rating] += 12_345
			} else if j == 0 && b.rating != "" {
				e[b.rating] -= 7_500
			}
		}
		checkTotals(t, w.op, want(matches...)) // every share applied
		for _, p := range ps {
			if d := statsDiff(model[p.id], recordStats(t, w, p)); d != "" {
				t.Errorf("after the %s match, %s: %s", b.name, p.login, d)
			}
		}
	}

	// A second submission of every match changes nothing.
	for i, f := range forms {
		g.MatchID = matches[i].MatchID
		if _, err := g.SubmitStats(ctx, f); err != nil {
			t.Fatalf("second submission of %s: %v", buckets[i].name, err)
		}
	}
	checkTotals(t, w.op, want(matches...))
	for _, p := range ps {
		if d := statsDiff(model[p.id], recordStats(t, w, p)); d != "" {
			t.Errorf("after second submissions, %s: %s", p.login, d)
		}
	}
}

// statsDiff lists the fields of got that differ from want.
func statsDiff(want, got map[string]int64) string {
	var d []string
	for _, k := range append(statsCounters[:len(statsCounters):len(statsCounters)], statsRatings...) {
		if want[k] != got[k] {
			d = append(d, fmt.Sprintf("%s = %d, want %d", k, got[k], want[k]))
		}
	}
	return strings.Join(d, "; ")
}
