package sdk

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
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

// maxReplyBytes bounds one reply of a plugin (a DecideBatch of maxBatch
// decisions, each with a state of at most MaxStateBytes and a decision
// given as much again, or one Decide), as the host reads it: go-plugin's
// connection would take replies of up to 2 GiB, and a broken plugin's
// reply was read whole before its oversized state refused it.
const maxReplyBytes = maxBatch*2*MaxStateBytes + 1<<20

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
//
// The callers send the batches themselves (leader and followers, as
// LevelDB's writers queue): a caller that finds fewer than inFlight
// batches out sends its own call with the queued ones; a leader whose batch
// has returned hands the turn to the first caller still queued, which was
// waiting anyway. No goroutine is started per batch, and none has to wake
// up to send one (a sender goroutine per burst grew a fresh stack in
// gRPC's stream set-up on every batch).
type batcher struct {
	c           *Client
	unsupported atomic.Bool // the plugin answered Unimplemented: call Decide

	mu       sync.Mutex
	queue    []*queued
	senders  int // callers sending a batch now, at most inFlight
	inFlight int // 0: DefaultBatchesInFlight
}

type queued struct {
	ctx  context.Context
	by   time.Time // the call's deadline (zero: none; see Client.DecideWithin)
	req  *pb.DecideRequest
	done chan outcome // capacity 1: the turn to send, then the result
}

type outcome struct {
	res  RawResult
	err  error
	lead bool // not a result: the caller's turn to send the next batch
}

// submit sends or queues one call, bounded by the deadline by, and waits
// for its result or for ctx.
func (b *batcher) submit(ctx context.Context, by time.Time, req *pb.DecideRequest) (RawResult, error) {
	q := &queued{ctx: ctx, by: by, req: req, done: make(chan outcome, 1)}
	b.mu.Lock()
	limit := b.inFlight
	if limit <= 0 {
		limit = DefaultBatchesInFlight
	}
	lead := b.senders < limit
	if lead {
		b.senders++
	} else {
		b.queue = append(b.queue, q)
	}
	b.mu.Unlock()
	if lead {
		b.lead(q)
	}
	for {
		select {
		case out := <-q.done:
			if out.lead {
				b.lead(q)
				continue
			}
			return out.res, out.err
		case <-ctx.Done():
			// The plugin may still decide it; the host applies nothing it did
			// not get, so the decision is simply dropped. A call already
			// taken from the queue may have been given the turn: pass it on.
			if !b.remove(q) {
				go func() {
					if out := <-q.done; out.lead {
						b.lead(q) // q's caller has gone: send skips it
					}
				}()
			}
			return RawResult{}, fromStatus(ctx, ctx.Err())
		}
	}
}

// lead sends first with the calls queued (within maxBatch and
// maxBatchBytes), delivers every result, then hands the turn to the first
// call still queued, or gives it up when none is.
func (b *batcher) lead(first *queued) {
	b.mu.Lock()
	n, size := 0, len(first.req.GetFacts())+len(first.req.GetState())
	for n < len(b.queue) && n+1 < maxBatch {
		size += len(b.queue[n].req.GetFacts()) + len(b.queue[n].req.GetState())
		if size > maxBatchBytes {
			break
		}
		n++
	}
	batch := append(make([]*queued, 0, n+1), first)
	batch = append(batch, b.queue[:n]...)
	b.queue = b.queue[n:]
	b.mu.Unlock()
	b.send(batch)
	b.mu.Lock()
	if len(b.queue) == 0 {
		b.queue = nil
		b.senders--
		b.mu.Unlock()
		return
	}
	next := b.queue[0]
	b.queue = b.queue[1:]
	b.mu.Unlock()
	next.done <- outcome{lead: true} // taken from the queue: its only turn
}

// remove takes q out of the queue; false when it was no longer there.
func (b *batcher) remove(q *queued) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, x := range b.queue {
		if x == q {
			copy(b.queue[i:], b.queue[i+1:])
			b.queue[len(b.queue)-1] = nil
			b.queue = b.queue[:len(b.queue)-1]
			return true
		}
	}
	return false
}

func (b *batcher) send(batch []*queued) {
	live := batch[:0:0]
	req := &pb.DecideBatchRequest{}
	deadline := time.Time{}
	for _, q := range batch {
		if err := q.ctx.Err(); err != nil {
			// Its caller has gone (or, leading, is about to return): answer
			// it all the same, so that whoever waits on done (the caller, or
			// the goroutine that passes on a turn) is never left waiting.
			// done is empty (a call in a batch was never given a turn, or
			// has taken it), so this never blocks.
			select {
			case q.done <- outcome{err: fromStatus(q.ctx, err)}:
			default:
			}
			continue
		}
		if q.by.After(deadline) {
			deadline = q.by
		}
		live = append(live, q)
		req.Calls = append(req.Calls, q.req)
	}
	if len(live) == 0 {
		return
	}
	if b.unsupported.Load() {
		// Queued before the plugin was found to serve no DecideBatch.
		b.decideEach(live)
		return
	}
	// The call lasts as long as the most patient caller allows. A follower
	// stops waiting when its caller's context ends; otherwise it, like the
	// leader, waits for the call, so it may return after its own deadline
	// by the spread of the batch's deadlines (the host's callers all have
	// CallTimeout, so the spread is small), with a result its caller then
	// finds late: dropChange and the other changes check their context
	// after a decision and refuse to commit once it has ended.
	if deadline.IsZero() {
		deadline = time.Now().Add(batchTimeout)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	resp, err := b.c.rpc.DecideBatch(ctx, req, grpc.MaxCallRecvMsgSize(maxReplyBytes))
	if status.Code(err) == codes.Unimplemented {
		b.unsupported.Store(true)
		b.decideEach(live)
		return
	}
	if err == nil && len(resp.GetResults()) != len(live) {
		err = status.Errorf(codes.Internal, "%d results for %d calls", len(resp.GetResults()), len(live))
	}
	for i, q := range live {
		if err != nil {
			select {
			case q.done <- outcome{err: fromStatus(q.ctx, err)}:
			default:
			}
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

// decideEach sends each call with Decide, for a plugin that serves no
// DecideBatch, each bounded by its own deadline (its call timeout, as
// DecideWithin promises) as well as its caller's context: bounded by the
// caller's alone, a hung plugin held the first calls after each start
// until the request's context ended, past call_timeout, and the
// supervisor's hang detection never counted them.
func (b *batcher) decideEach(live []*queued) {
	for _, q := range live {
		go func() {
			ctx := q.ctx
			if !q.by.IsZero() {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, q.by)
				defer cancel()
			}
			res, err := b.c.decideOne(ctx, q.req)
			q.done <- outcome{res: res, err: err}
		}()
	}
}
