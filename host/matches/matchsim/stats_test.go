package matchsim_test

import (
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/honmaster/masterserver/host/matches/matchsim"
)

// fiveVFive is a 5v5 of accounts 101..110.
func fiveVFive(seed uint64) *matchsim.Match {
	rng := rand.New(rand.NewPCG(seed, 2))
	ids := make([]int64, 10)
	nicks := make([]string, 10)
	for i := range ids {
		ids[i] = int64(101 + i)
		nicks[i] = "player" + strconv.Itoa(i)
	}
	return matchsim.NewMatch(rng, 77, 5, ids, nicks)
}

// TestFormIsAPlainFiveVFive: the plain submission has the notes' size
// (about 1,040 values: 95 fields a player, six inventory slots), each
// player's statistics under its account id and hero, and a winner its
// players' wins and losses agree with.
func TestFormIsAPlainFiveVFive(t *testing.T) {
	for seed := range uint64(20) {
		m := fiveVFive(seed)
		f := m.Form()
		if n := matchsim.CountValues(f) + 2; n < 1000 || n > 1100 { // + f and session
			t.Fatalf("seed %d: %d values, want about 1,040", seed, n)
		}
		if matchsim.PlayerFieldCount < 90 || matchsim.PlayerFieldCount > 100 {
			t.Errorf("%d fields a player, want about 95", matchsim.PlayerFieldCount)
		}
		if m.Winner != 1 && m.Winner != 2 {
			t.Fatalf("winner %d", m.Winner)
		}
		teams := map[int]int{}
		for _, p := range m.Players {
			teams[p.Team]++
			pre := "player_stats[" + strconv.FormatInt(p.AccountID, 10) + "][" + p.Hero + "]"
			n := 0
			for k := range f {
				if strings.HasPrefix(k, pre+"[") {
					n++
				}
			}
			if n != matchsim.PlayerFieldCount {
				t.Errorf("seed %d, %s: %d fields, want %d", seed, pre, n, matchsim.PlayerFieldCount)
			}
			want := map[string]int{"herokills": p.Kills, "deaths": p.Deaths, "heroassists": p.Assists,
				"wins": b2i(p.Team == m.Winner), "losses": b2i(p.Team != m.Winner), "concedes": b2i(p.Conceded), "discos": b2i(p.Disco)}
			for k, v := range want {
				if got := f.Get(pre + "[" + k + "]"); got != strconv.Itoa(v) {
					t.Errorf("seed %d, %s[%s] = %q, want %d", seed, pre, k, got, v)
				}
			}
			if (p.Conceded || p.Disco) && p.Team == m.Winner {
				t.Errorf("seed %d: a winner conceded or disconnected: %+v", seed, p)
			}
		}
		if teams[1] != 5 || teams[2] != 5 {
			t.Errorf("seed %d: teams %v", seed, teams)
		}
		if f.Get("match_stats[match_id]") != "77" || f.Get("match_stats[server_id]") != "5" {
			t.Errorf("match_stats ids %q %q", f.Get("match_stats[match_id]"), f.Get("match_stats[server_id]"))
		}
		tot := m.Totals()
		var wins, kills int64
		for _, p := range m.Players {
			wins += tot[p.AccountID].Wins
			kills += tot[p.AccountID].Kills
			if tot[p.AccountID].Matches != 1 || tot[p.AccountID].Heroes[p.Hero] != 1 {
				t.Errorf("totals %+v", tot[p.AccountID])
			}
		}
		if wins != 5 {
			t.Errorf("seed %d: %d winners", seed, wins)
		}
		if f.Get("team_stats[1][score]") == "" || f.Get("team_stats[2][score]") == "" {
			t.Errorf("team_stats missing")
		}
	}
}

// TestLongFormHasTheEvents: with items, abilities and frags, about 4,500
// values, one frag per kill.
func TestLongFormHasTheEvents(t *testing.T) {
	for seed := range uint64(20) {
		m := fiveVFive(seed)
		f := m.Long()
		n := matchsim.CountValues(f) + 2
		if n < 4300 || n > 4700 {
			t.Fatalf("seed %d: %d values, want about 4,500", seed, n)
		}
		kills, frags := 0, 0
		for _, p := range m.Players {
			kills += p.Kills
		}
		for k := range f {
			if strings.HasPrefix(k, "frags[") && strings.HasSuffix(k, "[killer_id]") {
				frags++
			}
		}
		if frags != kills {
			t.Errorf("seed %d: %d frags, %d kills", seed, frags, kills)
		}
		// The long form holds the plain one.
		for k, v := range m.Form() {
			if f.Get(k) != v[0] {
				t.Fatalf("long form differs at %s", k)
			}
		}
	}
}

// TestHostileForms: each hostile form is what it says.
func TestHostileForms(t *testing.T) {
	m := fiveVFive(1)
	plain := matchsim.CountValues(m.Form())
	for _, h := range matchsim.Hostiles {
		f := m.Hostile(h)
		enc := f.Encode()
		switch h {
		case matchsim.HostileMany:
			if n := matchsim.CountValues(f); n != matchsim.HostileValues {
				t.Errorf("%s: %d values", h, n)
			}
		case matchsim.HostileNesting:
			if f.Get("a[b][c][d][e]") != "1" || matchsim.CountValues(f) != plain+1 {
				t.Errorf("%s: not added", h)
			}
		case matchsim.HostileBrackets:
			brackets := 0
			for k := range f {
				brackets = max(brackets, strings.Count(k, "["))
			}
			if brackets != 10_000 {
				t.Errorf("%s: at most %d brackets in a key", h, brackets)
			}
		case matchsim.HostileUTF8Key, matchsim.HostileUTF8Value:
			bad := false
			for k, vs := range f {
				bad = bad || !utf8.ValidString(k) || !utf8.ValidString(vs[0])
			}
			if !bad {
				t.Errorf("%s: all valid UTF-8", h)
			}
			if !strings.Contains(enc, "%FF%FE") {
				t.Errorf("%s: the bytes are not sent", h)
			}
		}
		if _, err := url.ParseQuery(enc); err != nil && h != matchsim.HostileUTF8Key && h != matchsim.HostileMany { // Go reads at most 10,000 values
			t.Errorf("%s: encodes to a form Go cannot read back: %v", h, err)
		}
	}
}

// TestResubmissionKey: the key of the notes' formula, for a known match
// (computed independently), and the password MD5.
func TestResubmissionKey(t *testing.T) {
	// sha1sum of "12345" and the salt, computed with the shell.
	if got := matchsim.ResubmissionKey(12345); got != "ddbfe71e032d9314b13395508f2d743820f2fe9c" {
		t.Errorf("key of match 12345: %s", got)
	}
	// md5sum of "pw".
	if matchsim.PasswordMD5("pw") != "8fe4c11451281c094a6578e6ddbf5eed" {
		t.Errorf("md5(pw) = %s", matchsim.PasswordMD5("pw"))
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
