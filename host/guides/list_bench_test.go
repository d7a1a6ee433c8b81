package guides

import (
	"fmt"
	"testing"
	"time"

	rules "github.com/honmaster/masterserver/plugins/guides"
	"github.com/honmaster/masterserver/wire"
)

// BenchmarkList1000 is the host's and the bundled ranking's share of a list
// request on a hero with 1,000 guides (no plugin round trip, no storage).
func BenchmarkList1000(b *testing.B) {
	var gs []*Guide
	byGid := map[GuideID]*Guide{}
	for i := range 1000 {
		g := &Guide{Gid: GuideID(i + 1), Hero: "Hero_A", Name: fmt.Sprintf("Guide number %d with a long enough name", i),
			AuthorName: "author", Edited: time.Unix(int64(1.6e9)+int64(i), 0), Premium: i%100 == 0,
			Up: uint32(i * 7 % 101), Down: uint32(i * 3 % 37)}
		gs = append(gs, g)
		byGid[g.Gid] = g
	}
	m := &Marks{Defaults: map[string]GuideID{"Hero_A": 500}, Favorites: map[GuideID]bool{7: true, 9: true}}
	tally := &Tally{}
	b.ReportAllocs()
	for b.Loop() {
		f := RankFacts(7, "Hero_A", gs, m, tally)
		d := rules.Rank(f)
		entries, err := ListEntries(7, f, d, RankedCounts(f.Candidates, d.Order), func(g GuideID) *Guide { return byGid[g] }, m)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := wire.Marshal(listReply{status: ok, GuideList: FormatList(entries), HostTime: "1620573527"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTallyApplyParallel(b *testing.B) {
	tally := &Tally{}
	b.RunParallel(func(pb *testing.PB) {
		prev := VoteNone
		for pb.Next() {
			next := VoteUp
			if prev == VoteUp {
				next = VoteDown
			}
			tally.Apply("", 1, Ballot{Vote: prev}, Ballot{Vote: next})
			prev = next
		}
	})
}
