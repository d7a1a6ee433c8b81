package sdk

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Many concurrent calls with large facts (guide lists of a hero with
// thousands of guides) queue behind a held call; the batches that follow
// stay under gRPC's message limit, so every call gets its answer.
func TestLargeFactsBatchesSplit(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	p := Mock(GuidesRank, func(_ context.Context, c Call[GuideRankFacts]) (Result[GuideRankDecision], error) {
		if calls.Add(1) == 1 {
			<-release
		}
		return Result[GuideRankDecision]{Decision: GuideRankDecision{Order: []GuideID{c.Facts.Candidates[0].Gid}}}, nil
	})
	c := TestClient(t, p)
	c.SetBatchesInFlight(1) // one held batch: the rest queue behind it
	f := GuideRankFacts{}
	for i := range 2000 { // 50 KB of facts
		f.Candidates = append(f.Candidates, GuideCandidate{Gid: GuideID(i + 1), Up: uint32(i)})
	}
	const n = 120 // 6 MB queued: more than one 4 MiB message
	var wg sync.WaitGroup
	var failed atomic.Int32
	call := func() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := GuidesRank.Decide(ctx, c, Call[GuideRankFacts]{Facts: f}); err != nil {
				if failed.Add(1) == 1 {
					t.Error(err)
				}
			}
		}()
	}
	wait := func(what string, cond func() bool) { waitBatch(t, c, &calls, what, cond) }
	// The first call goes alone and is held in the plugin; the others then
	// queue behind it (a first batch with several calls would depend on how
	// fast the goroutines start).
	call()
	wait("first call never reached the plugin", func() bool { return calls.Load() == 1 })
	for range n - 1 {
		call()
	}
	wait("calls did not queue", func() bool { return queueLen(c) == n-1 })
	close(release)
	wg.Wait()
	if k := failed.Load(); k > 0 {
		t.Fatalf("%d of %d calls failed", k, n)
	}
}
