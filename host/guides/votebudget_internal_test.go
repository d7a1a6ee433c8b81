package guides

import (
	"sync"
	"sync/atomic"
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

// TestVoteBudgetHoldsForVotesAtOnce: votes from one address on different
// guides, sent at once, do not pass the address's burst
// (limits.guide_votes_per_address). spend checked the address's budget,
// then spent the guide's, then charged the address: votes sent together
// all passed the check before any was charged (64 of 64 against a burst
// of 5 in some trials). The clock stands still, so nothing refills.
func TestVoteBudgetHoldsForVotesAtOnce(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now }
	const burst = 5
	for trial := range 200 {
		l := VoteBudget{PerAddress: limit.Rate{Burst: burst, Every: time.Hour},
			PerGuideAddress: limit.Rate{Burst: 3, Every: time.Hour}, Keys: 100000}.limiters(clock)
		var allowed atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if l.spend("192.0.2.7", GuideID(1000+g)) == nil {
					allowed.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		if n := allowed.Load(); n != burst {
			t.Fatalf("trial %d: %d votes from one address allowed at once, want the burst, %d", trial, n, burst)
		}
	}
}
