package matches

import (
	"context"
	"log/slog"
	"strconv"
	"testing"

	"github.com/honmaster/masterserver/actors"
	pb "github.com/honmaster/masterserver/host/matches/internal/matchesrecpb"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// benchHeroes are the heroes the benchmark's matches cycle through.
var benchHeroes = []string{"Hero_Pyromancer", "Hero_Devourer", "Hero_Hammerstorm", "Hero_Legionnaire", "Hero_Accursed",
	"Hero_Arachna", "Hero_Behemoth", "Hero_Chronos", "Hero_Ebulus", "Hero_Frosty"}

// benchPlayer is an area over in-memory storage with one player,
// "bench", whose n matches were recorded by the effect's share (addDelta,
// one commit each, as a match's share commits).
func benchPlayer(b testing.TB, n int) (*Area, storage.AccountID) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	sys := actors.New(db, actors.Options{})
	b.Cleanup(func() { sys.Shutdown(); db.Close() })
	ctx := context.Background()
	acct, err := sys.CreateAccount(ctx, &actors.NewAccount{Login: "bench", Account: storage.Account{Nickname: "bench"}})
	if err != nil {
		b.Fatal(err)
	}
	var s Settings
	s.HistoryLength = 100
	a := &Area{sys: sys, set: s, log: slog.New(slog.DiscardHandler)}
	for i := range n {
		hero := benchHeroes[i%len(benchHeroes)]
		d := &pb.Delta{AccountId: uint32(acct.ID), Matches: 1, Wins: int32(i % 2), Losses: int32(1 - i%2), Kills: int32(i % 15),
			Deaths: int32(i % 9), Assists: int32(i % 20), Hero: hero}
		res := &pb.PlayerResult{AccountId: uint32(acct.ID), Team: int32(1 + i%2), HeroId: int32(1 + i%len(benchHeroes)), Secs: 1800, Hero: hero}
		p := &pb.Payload{MatchId: uint32(i + 1), Map: "caldavar", Submitted: 1_700_000_000 + int64(i), HistoryLength: 100}
		if _, err := actors.Apply(ctx, sys, acct.ID, func(tx *actors.Tx) (struct{}, error) {
			return struct{}{}, addDelta(tx, d, res, p)
		}); err != nil {
			b.Fatal(err)
		}
	}
	return a, acct.ID
}

// BenchmarkHistoryAndHeroStats measures one round of a player's reads —
// match_history_overview (the whole handler), get_hero_stats,
// get_hero_usage_list and get_account_all_hero_stats (after the cookie
// check), each reply PHP-encoded — for a player with 10, 1,000 and
// 10,000 recorded matches. The history and the per-hero totals are
// bounded records written with the totals, so the cost stops growing once
// the history is full (history_length, 100 here): 1,000 and 10,000 cost
// the same, and 10 answers 10 history lines instead of 100 (compare
// ns/op).
func BenchmarkHistoryAndHeroStats(b *testing.B) {
	for _, n := range []int{10, 1_000, 10_000} {
		b.Run("matches="+strconv.Itoa(n), func(b *testing.B) {
			a, id := benchPlayer(b, n)
			ctx := context.Background()
			req := &wire.Request{Form: wire.Values{"nickname": {"bench"}, "table": {"player"}, "num": {"0"}}}
			for b.Loop() {
				replies := make([]*wire.Array, 0, 4)
				r, err := a.historyOverview(ctx, req)
				if err != nil || r.Len() < 3 {
					b.Fatalf("history: %v %v", r, err)
				}
				replies = append(replies, r)
				if r, err = a.heroStatsFor(id, heroStatsRequest{Hero: "Hero_Chronos"}); err != nil || r.Len() < 5 {
					b.Fatalf("hero stats: %v %v", r, err)
				}
				replies = append(replies, r)
				if r, err = a.heroUsageFor(id, "use"); err != nil {
					b.Fatal(err)
				}
				replies = append(replies, r)
				if r, err = a.allHeroStatsFor(id); err != nil {
					b.Fatal(err)
				}
				replies = append(replies, r)
				for _, r := range replies {
					if _, err := wire.Marshal(r); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
