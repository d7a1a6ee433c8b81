package guides_test

import (
	"fmt"
	"testing"

	"github.com/honmaster/masterserver/host/guides"
)

// An account's votes over several guides move every guide's counts by its
// previous ballot, whether that ballot comes from the account's memo of its
// ballots (read at its first vote, kept by the next ones) or, past the
// memo's bound, from its record at each vote; a restart, which recounts the
// records, agrees.
func TestVoteBallotsMemo(t *testing.T) {
	for _, bound := range []int{128, 1, 0} {
		t.Run(fmt.Sprintf("bound %d", bound), func(t *testing.T) {
			defer guides.SetMaxMemoBallots(bound)()
			f := newYoungFixture(t, 1, 0)
			voter := f.old[0]
			// The seeded counts (rankGuide): 1 and 2 at 19:1, 3 at 14:6.
			want := map[guides.GuideID]guides.Counts{1: {Up: 19, Down: 1}, 2: {Up: 19, Down: 1}, 3: {Up: 14, Down: 6}}
			cast := map[guides.GuideID]guides.Vote{}
			steps := []struct {
				gid guides.GuideID
				v   guides.Vote
			}{{1, guides.VoteUp}, {2, guides.VoteDown}, {1, guides.VoteDown}, {3, guides.VoteUp}, {2, guides.VoteDown},
				{3, guides.VoteDown}, {1, guides.VoteUp}, {2, guides.VoteUp}}
			for i, s := range steps {
				f.vote(t, voter, s.gid, s.v)
				c := want[s.gid]
				switch cast[s.gid] {
				case guides.VoteUp:
					c.Up--
				case guides.VoteDown:
					c.Down--
				}
				if s.v == guides.VoteUp {
					c.Up++
				} else {
					c.Down++
				}
				want[s.gid], cast[s.gid] = c, s.v
				for gid, w := range want {
					if got := f.counts(t, f.svc, gid); got != w {
						t.Fatalf("after step %d (%v on %d): guide %d counts %+v, want %+v", i, s.v, s.gid, gid, got, w)
					}
				}
			}
			restarted := f.start(t)
			for gid, w := range want {
				if got := f.counts(t, restarted, gid); got != w {
					t.Errorf("after a restart: guide %d counts %+v, want %+v", gid, got, w)
				}
			}
		})
	}
}
