package guides

import (
	"context"
	"testing"
	"time"

	"github.com/honmaster/masterserver/plugins/guides/guidesapi"
)

// BenchmarkPluginRank1000 is the plugin's side of one list of a hero with
// 1,000 guides: decode the facts, check them, rank, encode the decision.
func BenchmarkPluginRank1000(b *testing.B) {
	f := RankFacts{Account: 1, Hero: "Hero_X", Favorites: []GuideID{5, 50}}
	for i := range 1000 {
		f.Candidates = append(f.Candidates, Candidate{Gid: GuideID(i + 1), Up: uint32(i * 7 % 101), Down: uint32(i * 13 % 37),
			Premium: i%100 == 0, Edited: time.Unix(1700000000, 0)})
	}
	p := Plugin()
	shared, _ := guidesapi.ShareGuideCandidates(f.Candidates)
	facts, err := guidesapi.RankFactsBytes(f.WithShared(shared))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := p.Decide(context.Background(), guidesapi.Rank.Name(), facts, nil); err != nil {
			b.Fatal(err)
		}
	}
}
