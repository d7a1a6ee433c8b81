package sdk

import (
	"context"
	"errors"
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

// DecideWithin bounds a call to a plugin that never answers without a
// context of its own: the call in flight ends at its batch's deadline, and
// a call queued behind it ends too (in the next batch, at its own bound),
// both with ErrUnavailable, though neither caller's context has a deadline.
func TestDecideWithinBoundsHungCalls(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	var calls atomic.Int32
	p := Mock(Pick, func(ctx context.Context, c Call[PickFacts]) (Result[PickDecision], error) {
		calls.Add(1)
		select {
		case <-hold:
		case <-ctx.Done():
		}
		return Result[PickDecision]{}, ctx.Err()
	})
	c := TestClient(t, p)
	c.SetBatchesInFlight(1)
	errs := make(chan error, 2)
	// The bound must outlast the first call's way to the handler, which
	// the test waits for below: on a loaded machine that can take longer
	// than a fraction of a second.
	call := func() {
		go func() {
			_, err := Pick.Decide(context.Background(), within{c, 2 * time.Second}, Call[PickFacts]{Facts: PickFacts{Options: []byte{1, 2}}})
			errs <- err
		}()
	}
	call()
	waitBatch(t, c, &calls, "the first call never reached the plugin", func() bool { return calls.Load() == 1 })
	call()
	waitBatch(t, c, &calls, "the second call did not queue", func() bool { return queueLen(c) == 1 || calls.Load() == 2 })
	for i := range 2 {
		select {
		case err := <-errs:
			if !errors.Is(err, ErrUnavailable) {
				t.Errorf("call %d: err = %v, want ErrUnavailable", i, err)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("call %d to a plugin that never answers did not end within 2 minutes", i)
		}
	}
}

// within is a Caller that bounds every call with DecideWithin.
type within struct {
	c *Client
	d time.Duration
}

func (w within) Decide(ctx context.Context, decision string, facts, state []byte) (RawResult, error) {
	return w.c.DecideWithin(ctx, w.d, decision, facts, state)
}
