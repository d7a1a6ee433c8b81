package actors

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/honmaster/masterserver/storage"
)

// Placement is what a System needs to know in cluster mode, where several
// nodes share one database (PostgreSQL) and each account has a home node
// (package host/cluster: the protoactor cluster's disthash placement over
// the current members). A nil Placement is a single node: every account is
// at home.
//
// In cluster mode every activation of an account (its actor starting, or
// starting again after a failed load) takes a new owner epoch for the
// account in the same transaction that loads it (storage.DB.ActivateAccount),
// and every batch the activation commits is fenced by that epoch
// (storage.Batch.Fence): once another node activated the account, a write
// of the older activation is refused by the database, whatever the clocks
// say. A fenced activation forgets its state and stops; its request is
// retried once by a fresh activation (nothing was written), and fails with
// ErrMoved if that one is fenced too (the account is moving under it).
//
// Reads of an account that is not at home here (an operator's console on
// another node) come from storage, never from a local activation, which
// could be stale. A change to such an account (an operator's command, a
// switch to a sub-account homed elsewhere) runs in a transient activation
// that stops right after it: its epoch fences the home's activation, whose
// next write is refused and runs again on a fresh load, and the home is
// told (Placement.Changed) to start afresh. Until it is (or when it
// cannot be reached), the home's reads may still show the state from
// before the change. A session is read from storage, and cached only
// for the home's live activation of its account (System.clusterSession):
// a logout through another node's transient activation fences that
// activation, but until it learns so (its next write, or Placement.Changed
// reaching the home) the home may still accept the ended session, as it
// may show the account's other records from before. Global keyspaces
// written by other nodes are seen through SyncGlobalVersions.
type Placement interface {
	// Node names this node in the owner records (for operators).
	Node() string
	// Home reports whether account id's home is this node in the node's
	// current view of the cluster.
	Home(id storage.AccountID) bool
	// Changed is told that a transient activation here changed account
	// id, homed elsewhere: the home's live actor, if any, holds the state
	// from before and should start afresh (Reactivate there), so that its
	// reads catch up at once rather than at its next write. Best effort,
	// and it must not block: a home that cannot be reached is not told.
	Changed(id storage.AccountID)
}

// ErrMoved is returned for a change refused because another node activated
// its account since (the account moved): nothing was written, and the
// request can be sent again.
var ErrMoved = errors.New("actors: the account moved to another node; nothing was written")

// clustered reports whether the system runs in cluster mode.
func (s *System) clustered() bool { return s.opts.Placement != nil }

// remote reports whether account id is homed on another node (never in
// single-node mode).
func (s *System) remote(id storage.AccountID) bool {
	return s.opts.Placement != nil && !s.opts.Placement.Home(id)
}

// AtHome reports whether account id is served by this node: always on a
// single node; in cluster mode when this node is its home in its current
// view. Work every node could do for any account (the session sweep) is
// done by each account's home, without transient activations.
func (s *System) AtHome(id storage.AccountID) bool { return !s.remote(id) }

// loadRemote reads account id from storage, for a read of an account homed
// on another node.
func (s *System) loadRemote(id storage.AccountID) (*storage.Account, error) {
	a, err := s.db.LoadAccount(id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, ErrNoAccount
	}
	return a, err
}

// applyHere runs a change through the local actor of account id, once more
// in a fresh activation when the database refused the actor's write (it
// was stale). An account homed elsewhere is served by a transient
// activation, released after the change.
//
// A request another node forwarded here (ForwardedContext) is not run
// again after a fence: its forwarding node may have answered it as of
// unknown outcome already (it gave up waiting), and a second run in a
// fresh activation, later than requests of the account served since,
// would apply it out of order. It fails with ErrMoved (nothing written),
// and a change of it that had not started when its context ended (the
// forwarding node gave up and cancelled it) is refused as ErrExpired.
func (s *System) applyHere(ctx context.Context, id storage.AccountID, c Change) (any, error) {
	for try := 0; ; try++ {
		ch, err := mutate[*changed](ctx, s, s.shardOf(id), func(dl time.Time) *envelope {
			return &envelope{ID: id, Sent: time.Now(), Msg: &applyChange{Change: c, Deadline: dl, Cancel: ctx.Done()}}
		})
		if s.remote(id) {
			s.shardOf(id).release(id)
		}
		if errors.Is(err, storage.ErrFenced) {
			// Nothing was written, and the fenced actor has stopped: the
			// change runs once more in a fresh activation (whose epoch
			// fences the other's). Fenced twice, the account is moving
			// under this request: ErrMoved.
			if try == 0 && !forwarded(ctx) {
				continue
			}
			return nil, fmt.Errorf("%w: %w", ErrMoved, err)
		}
		if s.remote(id) && !errors.Is(err, ErrNoAccount) && !errors.Is(err, ErrStopped) {
			// The transient activation took a new owner epoch whatever
			// the change answered (a refusal, an effect's share already
			// applied): the home's live activation is fenced either way,
			// and would fail its next forwarded request (ErrMoved) had it
			// not been told to start afresh. An account that does not
			// exist has no live activation to tell (and telling the home
			// would activate one there), nor has a system shutting down.
			s.opts.Placement.Changed(id)
		}
		if err != nil {
			return nil, err
		}
		return ch.Reply, nil
	}
}

// forwardedKey marks a context as a request another node forwarded.
type forwardedKey struct{}

// ForwardedContext marks ctx as the context of a request another node
// forwarded here to its account's home (package host/cluster): its change
// is never run a second time after a fence (see applyHere).
func ForwardedContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, forwardedKey{}, true)
}

// notForwarded is ctx without ForwardedContext's mark.
func notForwarded(ctx context.Context) context.Context {
	if !forwarded(ctx) {
		return ctx
	}
	return context.WithValue(ctx, forwardedKey{}, false)
}

// forwarded reports whether ctx is a forwarded request's (ForwardedContext).
func forwarded(ctx context.Context) bool {
	v, _ := ctx.Value(forwardedKey{}).(bool)
	return v
}

// Reactivate makes the next request to account id start a fresh activation
// (a new owner epoch and a fresh load) by stopping the local actor, if any,
// after the requests already posted to it. The cluster calls it when the
// account's grain starts on this node: an actor left from an earlier stay
// may hold state another node changed since.
func (s *System) Reactivate(id storage.AccountID) { s.shardOf(id).release(id) }

// globalSeen is the last global version read from storage per keyspace
// (SyncGlobalVersions).
type globalSeen struct {
	mu   sync.Mutex
	seen map[string]uint64
}

// SyncGlobalVersions tells the system the global versions stored now
// (storage.DB.GlobalVersions, polled by the cluster): every keyspace whose
// stored version moved since the last call gets its GlobalVersion bumped,
// so caches of global records reload what another node wrote. It returns
// the names that moved.
func (s *System) SyncGlobalVersions(stored map[string]uint64) []string {
	s.globalSeen.mu.Lock()
	defer s.globalSeen.mu.Unlock()
	if s.globalSeen.seen == nil {
		s.globalSeen.seen = map[string]uint64{}
	}
	var moved []string
	for name, v := range stored {
		if s.globalSeen.seen[name] != v {
			s.globalSeen.seen[name] = v
			s.version(name).Add(1)
			moved = append(moved, name)
		}
	}
	return moved
}
