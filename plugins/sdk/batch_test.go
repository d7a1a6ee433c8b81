package sdk

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Many concurrent calls with large facts (as a guide list of a hero with
// thousands of guides is) queue behind a held call; the batches that follow
// stay under gRPC's message limit, so every call gets its answer.
func TestLargeFactsBatchesSplit(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	p := Mock(Pick, func(_ context.Context, c Call[PickFacts]) (Result[PickDecision], error) {
		if calls.Add(1) == 1 {
			<-release
		}
		return Result[PickDecision]{Decision: PickDecision{Index: len(c.Facts.Options) - 1}}, nil
	})
	c := TestClient(t, p)
	c.SetBatchesInFlight(1) // one held batch: the rest queue behind it
	// 50 KB of facts per call, 120 calls: 6 MB queued, more than one 4 MiB message.
	f := PickFacts{Options: make([]byte, 50_000)}
	const n = 120
	var wg sync.WaitGroup
	var failed atomic.Int32
	call := func() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := Pick.Decide(ctx, c, Call[PickFacts]{Facts: f}); err != nil {
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
