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

// maxDropBatch bounds one DropBatch call.
const maxDropBatch = 512

// batchTimeout bounds a DropBatch call whose callers set no deadline.
const batchTimeout = 5 * time.Second

// dropBatcher coalesces concurrent drops into DropBatch calls, as a database
// groups commits: one call is in flight at a time; drops that arrive
// meanwhile wait and go together in the next call. A lone drop is sent at
// once, so batching adds no delay when the host is idle, and under load the
// cost of a call (two processes, a socket, HTTP/2 framing) is shared.
type dropBatcher struct {
	c           *plinkoGRPCClient
	unsupported atomic.Bool // the plugin answered Unimplemented: call Drop

	mu      sync.Mutex
	queue   []*queuedDrop
	running bool
}

type queuedDrop struct {
	ctx  context.Context
	f    DropFacts
	done chan dropOutcome // buffered: the sender never blocks
}

type dropOutcome struct {
	d   DropDecision
	err error
}

// submit queues one drop and waits for its decision or for ctx.
func (b *dropBatcher) submit(ctx context.Context, f DropFacts) (DropDecision, error) {
	q := &queuedDrop{ctx: ctx, f: f, done: make(chan dropOutcome, 1)}
	b.mu.Lock()
	b.queue = append(b.queue, q)
	if !b.running {
		b.running = true
		go b.run()
	}
	b.mu.Unlock()
	select {
	case out := <-q.done:
		return out.d, out.err
	case <-ctx.Done():
		// The plugin may still decide it; the host applies nothing it did
		// not get, so the decision is simply dropped.
		return DropDecision{}, fromStatus(ctx, ctx.Err())
	}
}

// run sends batches until the queue is empty, then exits.
func (b *dropBatcher) run() {
	for {
		b.mu.Lock()
		n := min(len(b.queue), maxDropBatch)
		batch := b.queue[:n:n]
		b.queue = b.queue[n:]
		if n == 0 {
			b.queue, b.running = nil, false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		b.send(batch)
	}
}

func (b *dropBatcher) send(batch []*queuedDrop) {
	live := batch[:0:0]
	req := &pb.DropBatchRequest{}
	deadline := time.Time{}
	for _, q := range batch {
		if q.ctx.Err() != nil {
			continue // its caller has gone
		}
		if dl, ok := q.ctx.Deadline(); ok && dl.After(deadline) {
			deadline = dl
		}
		live = append(live, q)
		req.Drops = append(req.Drops, factsToProto(q.f))
	}
	if len(live) == 0 {
		return
	}
	// The call lasts as long as the most patient caller allows.
	if deadline.IsZero() {
		deadline = time.Now().Add(batchTimeout)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	resp, err := b.c.client.DropBatch(ctx, req)
	if status.Code(err) == codes.Unimplemented {
		b.unsupported.Store(true)
		for _, q := range live {
			go func() {
				d, err := b.c.dropOne(q.ctx, q.f)
				q.done <- dropOutcome{d, err}
			}()
		}
		return
	}
	if err == nil && len(resp.GetResults()) != len(live) {
		err = status.Errorf(codes.Internal, "plinko: %d results for %d drops", len(resp.GetResults()), len(live))
	}
	for i, q := range live {
		if err != nil {
			q.done <- dropOutcome{err: fromStatus(q.ctx, err)}
			continue
		}
		r := resp.GetResults()[i]
		if c := codes.Code(r.GetCode()); c != codes.OK {
			q.done <- dropOutcome{err: fromStatus(q.ctx, status.Error(c, r.GetMessage()))}
			continue
		}
		d, derr := decisionFromProto(r.GetDecision())
		q.done <- dropOutcome{d, derr}
	}
}
