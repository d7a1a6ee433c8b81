package actors

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/honmaster/masterserver/storage"
)

// Options configures a System. Zero fields take the documented defaults.
type Options struct {
	IdleTimeout time.Duration // an account actor idle this long is passivated (default 5m)
	AskTimeout  time.Duration // upper bound of one request (default 5s)
	Shards      int           // number of shard actors (default 32)
	Logger      *slog.Logger  // nil discards
}

func (o *Options) ensureDefaults() {
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 5 * time.Minute
	}
	if o.AskTimeout <= 0 {
		o.AskTimeout = 5 * time.Second
	}
	if o.Shards <= 0 {
		o.Shards = 32
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// System is the set of account actors over one database.
type System struct {
	db       *storage.DB
	opts     Options
	as       *actor.ActorSystem
	shards   []*actor.PID
	registry *actor.PID
	stopped  atomic.Bool
	live     atomic.Int64 // account actors alive now
	// catalogVersion counts catalog writes by this process: caches of the
	// catalog compare it instead of re-reading storage.
	catalogVersion atomic.Uint64
	done           chan struct{}
	onMailbox      atomic.Pointer[func(time.Duration)] // see SetMailboxObserver
	passivations   atomic.Int64
}

// New starts the actor system over db.
func New(db *storage.DB, opts Options) *System {
	opts.ensureDefaults()
	logger := opts.Logger.With("component", "actors")
	as := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return logger }))
	s := &System{db: db, opts: opts, as: as, done: make(chan struct{})}
	for i := 0; i < opts.Shards; i++ {
		props := actor.PropsFromProducer(func() actor.Actor { return newShard(s) })
		pid, err := as.Root.SpawnNamed(props, "shard-"+strconv.Itoa(i))
		if err != nil {
			panic(fmt.Sprintf("actors: spawn shard: %v", err)) // fresh system: cannot clash
		}
		s.shards = append(s.shards, pid)
	}
	reg, err := as.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return &registry{sys: s} }), "registry")
	if err != nil {
		panic(fmt.Sprintf("actors: spawn registry: %v", err))
	}
	s.registry = reg
	go s.sweeper()
	return s
}

// sweeper asks every shard, a few times per idle timeout, to passivate idle
// account actors. (protoactor's own receive timeout races with the mailbox,
// and the shard sees every request anyway.)
func (s *System) sweeper() {
	t := time.NewTicker(max(s.opts.IdleTimeout/4, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case now := <-t.C:
			for _, pid := range s.shards {
				s.as.Root.Send(pid, &sweep{Now: now})
			}
		}
	}
}

// DB returns the database the system writes to, for reads.
func (s *System) DB() *storage.DB { return s.db }

// Live reports how many account actors are alive (for metrics and tests).
func (s *System) Live() int64 { return s.live.Load() }

// Shutdown stops every actor after the messages already queued to them.
func (s *System) Shutdown() {
	if s.stopped.Swap(true) {
		return
	}
	close(s.done)
	for _, pid := range append([]*actor.PID{s.registry}, s.shards...) {
		_ = s.as.Root.PoisonFuture(pid).Wait()
	}
	s.as.Shutdown()
}

func (s *System) shardOf(id storage.AccountID) *actor.PID {
	h := fnv.New32a()
	var b [4]byte
	b[0], b[1], b[2], b[3] = byte(id>>24), byte(id>>16), byte(id>>8), byte(id)
	h.Write(b[:])
	return s.shards[h.Sum32()%uint32(len(s.shards))]
}

// commitGrace is how long an asker waits past a change's deadline: a change
// the actor started before its deadline gets its reply even if its synced
// commit is slow.
const commitGrace = 2 * time.Second

// deadline is the latest time a request may start being served: AskTimeout
// from now, or ctx's deadline if earlier.
func (s *System) deadline(ctx context.Context) time.Time {
	dl := time.Now().Add(s.opts.AskTimeout)
	if c, ok := ctx.Deadline(); ok && c.Before(dl) {
		dl = c
	}
	return dl
}

// ask sends a read to pid and waits for the reply until the request's
// deadline. A failure reply becomes its error.
func (s *System) ask(ctx context.Context, pid *actor.PID, msg any) (any, error) {
	return s.askUntil(pid, msg, s.deadline(ctx))
}

// askUntil sends msg to pid and waits until wait. Mutations pass their
// deadline plus commitGrace, so that the actor, which refuses them after
// their deadline, always answers before the asker gives up.
func (s *System) askUntil(pid *actor.PID, msg any, wait time.Time) (any, error) {
	if s.stopped.Load() {
		return nil, ErrStopped
	}
	timeout := time.Until(wait)
	if timeout <= 0 {
		return nil, fmt.Errorf("%w: %w", ErrExpired, context.DeadlineExceeded)
	}
	res, err := s.as.Root.RequestFuture(pid, msg, timeout).Result()
	switch {
	case errors.Is(err, actor.ErrTimeout):
		return nil, ErrTimeout
	case errors.Is(err, actor.ErrDeadLetter):
		return nil, ErrStopped
	case err != nil:
		return nil, err
	}
	if f, ok := res.(*failure); ok {
		return nil, f.Err
	}
	return res, nil
}

// mutate sends a mutation built with its deadline and waits for its reply.
func mutate[T any](ctx context.Context, s *System, pid *actor.PID, build func(deadline time.Time) any) (T, error) {
	var zero T
	dl := s.deadline(ctx)
	if !time.Now().Before(dl) {
		return zero, fmt.Errorf("%w: %w", ErrExpired, context.DeadlineExceeded)
	}
	res, err := s.askUntil(pid, build(dl), dl.Add(commitGrace))
	if err != nil {
		return zero, err
	}
	r, ok := res.(T)
	if !ok {
		return zero, fmt.Errorf("%w: %T", ErrUnexpectedReply, res)
	}
	return r, nil
}

// askFor asks pid and expects a reply of type T.
func askFor[T any](ctx context.Context, s *System, pid *actor.PID, msg any) (T, error) {
	var zero T
	res, err := s.ask(ctx, pid, msg)
	if err != nil {
		return zero, err
	}
	r, ok := res.(T)
	if !ok {
		return zero, fmt.Errorf("%w: %T", ErrUnexpectedReply, res)
	}
	return r, nil
}

// Account returns a snapshot (deep copy) of an account as its actor holds it.
func (s *System) Account(ctx context.Context, id storage.AccountID) (*storage.Account, error) {
	snap, err := askFor[*snapshot](ctx, s, s.shardOf(id), &envelope{ID: id, Sent: time.Now(), Msg: &getAccount{}})
	if err != nil {
		return nil, err
	}
	return snap.Account, nil
}

// Apply runs one Change on an account through its actor and returns the
// Change's reply once the change is durably committed.
func (s *System) Apply(ctx context.Context, id storage.AccountID, c Change) (any, error) {
	ch, err := mutate[*changed](ctx, s, s.shardOf(id), func(dl time.Time) any {
		return &envelope{ID: id, Sent: time.Now(), Msg: &applyChange{Change: c, Deadline: dl}}
	})
	if err != nil {
		return nil, err
	}
	return ch.Reply, nil
}

// NewAccount describes an account to create.
type NewAccount struct {
	Login       string
	ParentLogin string // non-empty: create a sub-account of that main account
	// Account holds everything but ID, SuperID and Login, which the registry
	// assigns: profile, SRP verifier, starting balances.
	Account storage.Account
}

// CreateAccount creates an account through the registry and returns it.
func (s *System) CreateAccount(ctx context.Context, req *NewAccount) (*storage.Account, error) {
	c, err := mutate[*created](ctx, s, s.registry, func(dl time.Time) any {
		return &createAccount{Req: req, Deadline: dl}
	})
	if err != nil {
		return nil, err
	}
	return c.Account, nil
}

// EnsureMeta returns the metadata value name, storing value first when the
// database has none (generated secrets). The registry is its single writer.
// It carries no deadline: the write is idempotent (a later call returns the
// stored value), so a timeout that hides it is harmless — callers must use
// the returned value, never their own after an error.
func (s *System) EnsureMeta(ctx context.Context, name string, value []byte) ([]byte, error) {
	m, err := askFor[*metaValue](ctx, s, s.registry, &ensureMeta{Name: name, Value: value})
	if err != nil {
		return nil, err
	}
	return m.Value, nil
}

// PutCatalog replaces the Plinko catalog (a global record, written by the
// registry).
func (s *System) PutCatalog(ctx context.Context, c *storage.Catalog) error {
	_, err := mutate[*done](ctx, s, s.registry, func(dl time.Time) any {
		return &putCatalog{Catalog: c, Deadline: dl}
	})
	return err
}

// CatalogVersion changes every time this system writes the catalog. (Only
// one process opens a data directory at a time, so no other writer exists
// while it runs.)
func (s *System) CatalogVersion() uint64 { return s.catalogVersion.Load() }

// Read runs fn on the account's current state inside its actor and returns
// fn's result, without copying the account. fn must only read, must not keep
// the account or any part of it, and must be quick: it runs in the actor.
func (s *System) Read(ctx context.Context, id storage.AccountID, fn func(*storage.Account) any) (any, error) {
	ch, err := askFor[*changed](ctx, s, s.shardOf(id), &envelope{ID: id, Sent: time.Now(), Msg: &readAccount{Fn: fn}})
	if err != nil {
		return nil, err
	}
	return ch.Reply, nil
}
