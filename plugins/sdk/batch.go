package sdk

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/honmaster/masterserver/plugins/sdk/internal/pb"
)

// maxBatch bounds one DecideBatch call.
const maxBatch = 512

// maxBatchBytes bounds the facts and state bytes of one DecideBatch call
// (a lone larger call still goes, alone), well below gRPC's default 4 MiB
// message limit: 256 calls of 25 KB facts (a guide list of a hero with
// 1,000 guides) would otherwise make one batch the plugin refuses whole.
const maxBatchBytes = 1 << 20

// DefaultBatchesInFlight is how many DecideBatch calls a client keeps in
// flight at once unless told otherwise (Client.SetBatchesInFlight).
const DefaultBatchesInFlight = 2

// batchTimeout bounds a DecideBatch call whose callers set no deadline.
const batchTimeout = 5 * time.Second

// batcher coalesces concurrent decisions (of any area, from many account
// actors) into DecideBatch calls, as a database groups commits: up to
// inFlight calls are in flight at a time; calls that arrive while all are
// busy wait and go together in the next one. A lone call is sent at once,
// so batching adds no delay when the host is idle, and under load the cost
// of a call (two processes, a socket, HTTP/2 framing) is shared. With more
// than one call in flight, a decision arriving while a batch is out does
// not wait for that whole round trip first (the plugin process decides the
// batches in parallel).
type batcher struct {
	c           *Client
	unsupported atomic.Bool // the plugin answered Unimplemented: call Decide

	mu       sync.Mutex
	queue    []*queued
	senders  int // goroutines sending batches, at most inFlight
	inFlight int // 0: DefaultBatchesInFlight
}

type queued struct {
	ctx  context.Context
	req  *pb.DecideRequest
	done chan outcome // buffered: the sender never blocks
}

type outcome struct {
	res RawResult
	err error
}

// submit queues one call and waits for its result or for ctx.
func (b *batcher) submit(ctx context.Context, req *pb.DecideRequest) (RawResult, error) {
	q := &queued{ctx: ctx, req: req, done: make(chan outcome, 1)}
	b.mu.Lock()
	b.queue = append(b.queue, q)
	limit := b.inFlight
	if limit <= 0 {
		limit = DefaultBatchesInFlight
	}
	if b.senders < limit {
		b.senders++
		go b.run()
	}
	b.mu.Unlock()
	select {
	case out := <-q.done:
		return out.res, out.err
	case <-ctx.Done():
		// The plugin may still decide it; the host applies nothing it did
		// not get, so the decision is simply dropped.
		return RawResult{}, fromStatus(ctx, ctx.Err())
	}
}

// run sends batches until the queue is empty, then exits.
func (b *batcher) run() {
	for {
		b.mu.Lock()
		n, size := 0, 0
		for n < len(b.queue) && n < maxBatch {
			size += len(b.queue[n].req.GetFacts()) + len(b.queue[n].req.GetState())
			if n > 0 && size > maxBatchBytes {
				break
			}
			n++
		}
		batch := b.queue[:n:n]
		b.queue = b.queue[n:]
		if n == 0 {
			b.queue = nil
			b.senders--
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		b.send(batch)
	}
}

func (b *batcher) send(batch []*queued) {
	live := batch[:0:0]
	req := &pb.DecideBatchRequest{}
	deadline := time.Time{}
	for _, q := range batch {
		if q.ctx.Err() != nil {
			continue // its caller has gone
		}
		if dl, ok := q.ctx.Deadline(); ok && dl.After(deadline) {
			deadline = dl
		}
		live = append(live, q)
		req.Calls = append(req.Calls, q.req)
	}
	if len(live) == 0 {
		return
	}
	// The call lasts as long as the most patient caller allows; each caller
	// still stops waiting at its own deadline.
	if deadline.IsZero() {
		deadline = time.Now().Add(batchTimeout)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	resp, err := b.c.rpc.DecideBatch(ctx, req)
	if status.Code(err) == codes.Unimplemented {
		b.unsupported.Store(true)
		for _, q := range live {
			go func() {
				res, err := b.c.decideOne(q.ctx, q.req)
				q.done <- outcome{res, err}
			}()
		}
		return
	}
	if err == nil && len(resp.GetResults()) != len(live) {
		err = status.Errorf(codes.Internal, "%d results for %d calls", len(resp.GetResults()), len(live))
	}
	for i, q := range live {
		if err != nil {
			q.done <- outcome{err: fromStatus(q.ctx, err)}
			continue
		}
		r := resp.GetResults()[i]
		if c := codes.Code(r.GetCode()); c != codes.OK {
			q.done <- outcome{err: fromStatus(q.ctx, status.Error(c, r.GetMessage()))}
			continue
		}
		q.done <- outcome{res: RawResult{Decision: r.GetResponse().GetDecision(), State: r.GetResponse().GetState()}}
	}
}
