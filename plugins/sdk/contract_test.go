package sdk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRegistry(t *testing.T) {
	if !PickArea.Known() || Area("chess").Known() {
		t.Fatal("Known is wrong")
	}
	if got := PickArea.Decisions(); len(got) != 1 || got[0] != (DecisionInfo{Name: "test.pick", Version: 1}) {
		t.Fatalf("test decisions = %v", got)
	}
	if _, err := ParseArea("chess"); err == nil {
		t.Fatal("ParseArea(chess) succeeded")
	}
	for _, f := range []func(){
		func() { RegisterArea(string(PickArea)) },
		func() { registerDecision(PickArea, "pick", 1) },
		func() { registerDecision("chess", "move", 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("duplicate or unknown registration did not panic")
				}
			}()
			f()
		}()
	}
}

func TestWatchParent(t *testing.T) {
	ppids := make(chan int, 3)
	ppids <- 100
	ppids <- 100
	ppids <- 1 // re-parented to init: the host died
	exited := make(chan struct{})
	go watchParent(100, time.Millisecond, func() int { return <-ppids }, func() { close(exited) })
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("watchParent did not exit after the parent changed")
	}
}

var goodFacts = PickFacts{Options: []byte("abcd")}

// TestDecideOverGRPC checks what crosses the boundary: facts, decision and
// state both ways, the host's Check, and errors as sentinels.
func TestDecideOverGRPC(t *testing.T) {
	var gotState atomic.Value
	answer := PickDecision{Index: 2}
	var fail error
	p := Mock(Pick, func(_ context.Context, c Call[PickFacts]) (Result[PickDecision], error) {
		gotState.Store(string(c.State))
		if !bytes.Equal(c.Facts.Options, goodFacts.Options) {
			return Result[PickDecision]{}, fmt.Errorf("facts %+v", c.Facts)
		}
		return Result[PickDecision]{Decision: answer, State: []byte("s2")}, fail
	})
	c := TestClient(t, p)
	ctx := context.Background()

	res, err := Pick.Decide(ctx, c, Call[PickFacts]{Facts: goodFacts, State: []byte("s1")})
	if err != nil || res.Decision != answer || string(res.State) != "s2" || gotState.Load() != "s1" {
		t.Fatalf("Decide = %+v, %v (plugin saw state %v)", res, err, gotState.Load())
	}

	tests := []struct {
		name   string
		answer PickDecision
		fail   error
		facts  PickFacts
		want   error
	}{
		{"index out of range", PickDecision{Index: 4}, nil, goodFacts, ErrInvalidDecision},
		{"negative index", PickDecision{Index: -1}, nil, goodFacts, ErrInvalidDecision},
		{"plugin error", answer, errors.New("boom"), goodFacts, ErrPluginFailed},
		{"plugin unavailable", answer, ErrUnavailable, goodFacts, ErrUnavailable},
		{"bad facts", answer, nil, PickFacts{}, ErrInvalidFacts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answer, fail = tt.answer, tt.fail
			_, err := Pick.Decide(ctx, c, Call[PickFacts]{Facts: tt.facts})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	answer, fail = PickDecision{Index: 2}, nil

	// A decision the plugin does not serve.
	if _, err := c.Decide(ctx, "test.nothing", nil, nil); !errors.Is(err, ErrPluginFailed) {
		t.Fatalf("unknown decision: %v, want ErrPluginFailed", err)
	}
	info, err := c.Info(ctx)
	if err != nil || info.Name != "mock" || len(info.Decisions) != 1 || info.Decisions[0].Name != Pick.Name() {
		t.Fatalf("Info = %+v, %v", info, err)
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

// TestDecideBatching checks that concurrent calls share DecideBatch calls
// and each gets its own answer.
func TestDecideBatching(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	p := Mock(Pick, func(_ context.Context, c Call[PickFacts]) (Result[PickDecision], error) {
		if calls.Add(1) == 1 {
			<-release // hold the first batch so the others queue up
		}
		return Result[PickDecision]{Decision: PickDecision{Index: 1}, State: c.State}, nil
	})
	c := TestClient(t, p)
	c.SetBatchesInFlight(1) // one held batch: the rest queue behind it
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	call := func(i int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := []byte{byte(i)}
			// A patient caller: the held batch must not hit batchTimeout.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := Pick.Decide(ctx, c, Call[PickFacts]{Facts: goodFacts, State: st})
			if err == nil && (len(res.State) != 1 || res.State[0] != byte(i)) {
				err = fmt.Errorf("call %d got state %v", i, res.State)
			}
			errs <- err
		}()

	}
	wait := func(what string, cond func() bool) { waitBatch(t, c, &calls, what, cond) }
	// The first call goes alone and is held in the plugin; the others then
	// queue behind it and must go together in the next batch.
	call(0)
	wait("first call never reached the plugin", func() bool { return calls.Load() == 1 })
	for i := 1; i < n; i++ {
		call(i)
	}
	wait("calls did not queue", func() bool { return queueLen(c) == n-1 })
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if calls.Load() != n {
		t.Fatalf("%d decisions, want %d", calls.Load(), n)
	}
}

// waitBatch waits (bounded) until cond holds, failing the test with what,
// the calls the plugin received and the calls queued.
func waitBatch(t *testing.T, c *Client, calls *atomic.Int32, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d in, %d queued", what, calls.Load(), queueLen(c))
		}
		time.Sleep(time.Millisecond)
	}
}

func queueLen(c *Client) int {
	c.batch.mu.Lock()
	defer c.batch.mu.Unlock()
	return len(c.batch.queue)
}

func TestConfigureOverGRPC(t *testing.T) {
	p := Mock(Pick, nil)
	p.Configure = func(_ context.Context, area Area, cfg map[string]any) []ConfigProblem {
		if n, ok := cfg["after"].(float64); !ok || n < 1 {
			return []ConfigProblem{{Key: "after", Message: fmt.Sprintf("must be a number >= 1 (area %s)", area)}}
		}
		return nil
	}
	c := TestClient(t, p)
	ps, err := c.Configure(context.Background(), PickArea, map[string]any{"after": int64(0)})
	if err != nil || len(ps) != 1 || ps[0].Key != "after" {
		t.Fatalf("Configure(after=0) = %v, %v", ps, err)
	}
	ps, err = c.Configure(context.Background(), PickArea, map[string]any{"after": int64(3)})
	if err != nil || len(ps) != 0 {
		t.Fatalf("Configure(after=3) = %v, %v", ps, err)
	}
	// A plugin without Configure accepts only an empty table.
	if ps := (&Plugin{}).configure(context.Background(), PickArea, map[string]any{"x": 1}); len(ps) != 1 || ps[0].Key != "x" {
		t.Fatalf("nil Configure: %v", ps)
	}
}

func TestStateLimit(t *testing.T) {
	for _, n := range []int{MaxStateBytes, MaxStateBytes + 1} {
		p := Mock(Pick, func(context.Context, Call[PickFacts]) (Result[PickDecision], error) {
			return Result[PickDecision]{Decision: PickDecision{Index: 0}, State: make([]byte, n)}, nil
		})
		_, err := Pick.Decide(context.Background(), p, Call[PickFacts]{Facts: goodFacts})
		if (n > MaxStateBytes) != errors.Is(err, ErrInvalidDecision) {
			t.Errorf("state of %d bytes: err = %v", n, err)
		}
	}
}

// TestBatchesInFlight: with two batches allowed in flight, a second call
// does not wait for a held first one; a third, arriving while both are
// out, queues until one returns.
func TestBatchesInFlight(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	p := Mock(Pick, func(_ context.Context, c Call[PickFacts]) (Result[PickDecision], error) {
		if calls.Add(1) <= 2 {
			<-release
		}
		return Result[PickDecision]{Decision: PickDecision{Index: 1}, State: c.State}, nil
	})
	c := TestClient(t, p)
	c.SetBatchesInFlight(2)
	errs := make(chan error, 3)
	call := func() {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := Pick.Decide(ctx, c, Call[PickFacts]{Facts: goodFacts})
			errs <- err
		}()
	}
	wait := func(what string, cond func() bool) { waitBatch(t, c, &calls, what, cond) }
	call()
	wait("first call never reached the plugin", func() bool { return calls.Load() == 1 })
	call()
	wait("second call waited for the first", func() bool { return calls.Load() == 2 })
	call()
	wait("third call did not queue", func() bool { return queueLen(c) == 1 })
	if n := calls.Load(); n != 2 {
		t.Fatalf("%d calls reached the plugin with two in flight, want 2", n)
	}
	close(release)
	for range 3 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("%d decisions, want 3", n)
	}
}

// TestBatchTurnSurvivesCallersGivingUp: callers whose context ends while
// queued, or just after being given the turn to send, never strand the
// others: every patient caller gets its decision, and once all are done no
// turn is left taken and nothing is queued.
func TestBatchTurnSurvivesCallersGivingUp(t *testing.T) {
	p := Mock(Pick, func(_ context.Context, c Call[PickFacts]) (Result[PickDecision], error) {
		time.Sleep(200 * time.Microsecond) // slow enough for queues to form
		return Result[PickDecision]{Decision: PickDecision{Index: 1}, State: c.State}, nil
	})
	c := TestClient(t, p)
	c.SetBatchesInFlight(1)
	const callers, rounds = 16, 40
	var wg sync.WaitGroup
	var patientErrs atomic.Int32
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				patient := (i+r)%3 != 0
				timeout := 20 * time.Second // a stranded turn shows as this error
				if !patient {
					timeout = time.Duration(1+(i*r)%400) * time.Microsecond
				}
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				_, err := Pick.Decide(ctx, c, Call[PickFacts]{Facts: goodFacts})
				cancel()
				if patient && err != nil {
					patientErrs.Add(1)
					t.Errorf("patient caller: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	// A turn handed to a caller that had gone is passed on by a goroutine:
	// give it a bounded moment to finish.
	waitBatcherIdle(t, c)
}

// waitBatcherIdle waits (bounded) until no turn is taken, nothing is queued
// and no goroutine of the batcher's is left (one that passes on a turn of a
// caller that gave up must always get an answer and end).
func waitBatcherIdle(t *testing.T, c *Client) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.batch.mu.Lock()
		senders, queued := c.batch.senders, len(c.batch.queue)
		c.batch.mu.Unlock()
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		left := strings.Count(stacks, "(*batcher).submit.func")
		if senders == 0 && queued == 0 && left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after every caller returned: %d senders, %d queued, %d batcher goroutines; want none", senders, queued, left)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestBatchExpiredCallerLeavesNothing: a call whose context has already
// ended, sent on an idle batcher (it leads its own batch, which skips it),
// gets its context's error and leaves no goroutine behind.
func TestBatchExpiredCallerLeavesNothing(t *testing.T) {
	c := TestClient(t, Mock(Pick, nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 10 {
		if _, err := Pick.Decide(ctx, c, Call[PickFacts]{Facts: goodFacts}); err == nil {
			t.Fatal("a call with an ended context succeeded")
		}
	}
	waitBatcherIdle(t, c)
}
