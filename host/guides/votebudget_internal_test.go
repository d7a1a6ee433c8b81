package guides

import (
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/limit"
)

// TestVoteBudgetSpentAddressMakesNoGuideBuckets: an address out of votes
// that names ever new guide ids is refused before a per-guide bucket is
// made for any of them; otherwise it could fill the per-guide limiter's
// table until the buckets of its own real votes were evicted.
func TestVoteBudgetSpentAddressMakesNoGuideBuckets(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := VoteBudget{PerAddress: limit.Rate{Burst: 2, Every: time.Hour},
		PerGuideAddress: limit.Rate{Burst: 3, Every: time.Hour}, Keys: 1000}.limiters(func() time.Time { return now })
	for gid := GuideID(1); gid <= 2; gid++ {
		if err := l.spend("192.0.2.1", gid); err != nil {
			t.Fatalf("vote %d within the budget: %v", gid, err)
		}
	}
	for gid := GuideID(100); gid < 200; gid++ {
		if err := l.spend("192.0.2.1", gid); ReasonOf(err) != ReasonVoteRefused {
			t.Fatalf("vote on guide %d past the address's budget: %v, want %v", gid, err, ReasonVoteRefused)
		}
	}
	if n := l.one.Len(); n != 2 {
		t.Errorf("per-guide buckets after 100 refused votes on new guides: %d, want 2 (the allowed votes')", n)
	}
}
