package actors

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/storage/cache"
)

// Options configures a System. Zero fields take the documented defaults.
type Options struct {
	IdleTimeout time.Duration // an account actor idle this long is passivated (default 5m)
	AskTimeout  time.Duration // upper bound of one request (default 5s)
	Shards      int           // number of shards, the routing tables of account actors (default 32)
	// ShutdownWait bounds how long Shutdown waits, in all, for the account
	// actors to finish the requests already posted to them (default 30s).
	ShutdownWait time.Duration
	// SessionCacheSize bounds the sessions kept in memory in front of
	// storage (default 100000; about 170 bytes each). In cluster mode it
	// bounds the sessions of the accounts live here and, as much again,
	// the cookies' account ids kept for routing (SessionAccount).
	SessionCacheSize int
	// ReleaseMemoryAfter is how many passivations make a wave after which
	// the system gives the memory they freed back to the operating system
	// (see releaser); default 5000, < 0 never.
	ReleaseMemoryAfter int
	Logger             *slog.Logger // nil discards
	// Placement puts the system in cluster mode (see Placement); nil is a
	// single node.
	Placement Placement
	// EffectRetry is how often the recovery pass of effects on several
	// accounts runs after the one at start (see ResumeEffects); <= 0 runs
	// none, not even at start: a server passes DefaultEffectRetry, while
	// an operator's command on a stopped server and most tests run none.
	EffectRetry time.Duration
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
	if o.ShutdownWait <= 0 {
		o.ShutdownWait = 30 * time.Second
	}
	if o.SessionCacheSize == 0 {
		o.SessionCacheSize = DefaultSessionCacheSize
	}
	if o.ReleaseMemoryAfter == 0 {
		o.ReleaseMemoryAfter = DefaultReleaseMemoryAfter
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
	shards   []*shard
	registry *pidDestination
	// dispatcher runs the account actors' mailboxes (dispatcher.go).
	dispatcher *workerDispatcher
	stopped    atomic.Bool
	live       atomic.Int64  // account actors alive now
	idle       atomic.Int64  // the idle timeout in force (SetIdleTimeout)
	retune     chan struct{} // tells the sweeper the idle timeout changed
	// versions counts the writes of each global keyspace by this process
	// (name -> *atomic.Uint64): caches compare it instead of re-reading.
	versions sync.Map
	sessions *cache.LRU[sessionCacheKey, storage.CompactSession]
	// In cluster mode (nil on a single node): the sessions of the
	// accounts whose activation is here, each valid while that
	// activation is (clusterSession), and which account each session
	// cookie seen here is of, for routing (SessionAccount).
	homeSessions *cache.LRU[sessionCacheKey, homeSession]
	routes       *cache.LRU[sessionCacheKey, storage.AccountID]
	activations  atomic.Uint64 // numbers the activations (child.act)
	done         chan struct{}
	released     releaseState                        // see releaser (memory.go)
	onMailbox    atomic.Pointer[func(time.Duration)] // see SetMailboxObserver
	passivations atomic.Int64
	deleteHooks  deleteHooks  // see OnDelete (delete.go)
	releaseHooks releaseHooks // see OnMemoryRelease (memory.go)
	// accountProps spawns every account actor (one Props for all: a Props
	// per actor would stay with it as long as it lives).
	accountProps *actor.Props
	globalSeen   globalSeen  // see SyncGlobalVersions
	creates      createGroup // CreateAccount's group commit (create_group.go)

	// effectsDone is closed when the effects' recovery loop has ended
	// (effects.go).
	effectsDone chan struct{}
	// effectsFrom is where the next recovery pass starts reading effect
	// records (effects.go), under effectsMu.
	effectsMu   sync.Mutex
	effectsFrom storage.EffectID
}

// DefaultSessionCacheSize is the default bound of the session cache.
const DefaultSessionCacheSize = 100_000

// New starts the actor system over db.
func New(db *storage.DB, opts Options) *System {
	opts.ensureDefaults()
	logger := opts.Logger.With("component", "actors")
	as := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return logger }))
	rebucketRegistry(as) // registry_maps.go
	s := &System{db: db, opts: opts, as: as, done: make(chan struct{}),
		sessions: cache.New[sessionCacheKey, storage.CompactSession](opts.SessionCacheSize, cacheShard)}
	if opts.Placement != nil {
		s.homeSessions = cache.New[sessionCacheKey, homeSession](opts.SessionCacheSize, cacheShard)
		s.routes = cache.New[sessionCacheKey, storage.AccountID](opts.SessionCacheSize, cacheShard)
	}
	s.idle.Store(int64(opts.IdleTimeout))
	s.retune = make(chan struct{}, 1)
	s.dispatcher = newWorkerDispatcher(defaultThroughput, s.done)
	s.accountProps = actor.PropsFromProducer(func() actor.Actor { return &account{sys: s} },
		actor.WithMailbox(actor.UnboundedLockfree()),
		actor.WithDispatcher(s.dispatcher))
	for i := 0; i < opts.Shards; i++ {
		s.shards = append(s.shards, newShard(s))
	}
	reg, err := as.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return &registry{sys: s} }), "registry")
	if err != nil {
		panic(fmt.Sprintf("actors: spawn registry: %v", err))
	}
	s.registry = &pidDestination{root: as.Root, pid: reg}
	s.answerDeadLetters()
	go s.sweeper()
	if opts.ReleaseMemoryAfter > 0 {
		go s.releaser()
	}
	s.effectsDone = make(chan struct{})
	if opts.EffectRetry > 0 {
		go s.effectLoop() // effects.go
	} else {
		close(s.effectsDone)
	}
	return s
}

// sweeper asks every shard, a few times per idle timeout, to passivate idle
// account actors. (protoactor's own receive timeout races with the mailbox,
// and the shard sees every request anyway.)
func (s *System) sweeper() {
	every := func() time.Duration { return max(s.IdleTimeout()/4, time.Millisecond) }
	t := time.NewTicker(every())
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-s.retune:
			t.Reset(every())
		case now := <-t.C:
			for _, sh := range s.shards {
				sh.sweep(now)
			}
		}
	}
}

// IdleTimeout is the idle time after which an account actor is passivated.
func (s *System) IdleTimeout() time.Duration { return time.Duration(s.idle.Load()) }

// SetIdleTimeout changes the idle timeout of every account actor, live ones
// included, from the next sweep on (a configuration reload); d <= 0 is
// ignored.
func (s *System) SetIdleTimeout(d time.Duration) {
	if d <= 0 || time.Duration(s.idle.Swap(int64(d))) == d {
		return
	}
	select {
	case s.retune <- struct{}{}:
	default: // a retune is pending already
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
	// Every shard stops its actors at once; the wait for all of them is
	// bounded as a whole (a stalled actor, such as one in a stalled synced
	// commit, must not hold the shutdown for ever).
	drained := make([]<-chan struct{}, len(s.shards))
	for i, sh := range s.shards {
		drained[i] = sh.drain()
	}
	wait, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownWait)
	defer cancel()
	for _, d := range drained {
		select {
		case <-d:
		case <-wait.Done():
		}
	}
	select { // its pass ends at its next share, refused now
	case <-s.effectsDone:
	case <-wait.Done():
	}
	_ = s.as.Root.PoisonFuture(s.registry.pid).Wait()
	s.as.Shutdown()
}

// destination is where System.call sends an envelope: an account's shard,
// which posts it to the account's actor, or the registry actor.
type destination interface{ deliver(*envelope) }

// pidDestination delivers envelopes to one actor.
type pidDestination struct {
	root *actor.RootContext
	pid  *actor.PID
}

func (d *pidDestination) deliver(env *envelope) { d.root.Send(d.pid, env) }

func (s *System) shardOf(id storage.AccountID) *shard {
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

// ask sends a read to to and waits for the reply until the request's
// deadline. A failure reply becomes its error.
func (s *System) ask(ctx context.Context, to destination, env *envelope) (any, error) {
	return s.askUntil(to, env, s.deadline(ctx))
}

// askUntil sends env to to and waits until wait. Mutations pass their
// deadline plus commitGrace, so that the actor, which refuses them after
// their deadline, always answers before the asker gives up.
func (s *System) askUntil(to destination, env *envelope, wait time.Time) (any, error) {
	if s.stopped.Load() {
		return nil, ErrStopped
	}
	timeout := time.Until(wait)
	if timeout <= 0 {
		return nil, fmt.Errorf("%w: %w", ErrExpired, context.DeadlineExceeded)
	}
	return s.call(to, env, timeout)
}

// call sends env to to and waits at most timeout for its answer. An
// envelope that cannot be delivered (its actor has stopped) is answered
// ErrStopped by the dead-letter subscription New makes.
func (s *System) call(to destination, env *envelope, timeout time.Duration) (any, error) {
	env.reply = make(chan any, 1)
	t := time.NewTimer(timeout)
	defer t.Stop()
	to.deliver(env)
	select {
	case res := <-env.reply:
		if f, ok := res.(*failure); ok {
			return nil, f.Err
		}
		return res, nil
	case <-t.C:
		return nil, ErrTimeout
	}
}

// answerDeadLetters answers every envelope protoactor could not deliver
// (sent to an actor that has stopped) with ErrStopped, as its futures
// answer a dead letter, instead of leaving the asker to its timeout.
func (s *System) answerDeadLetters() {
	s.as.EventStream.Subscribe(func(evt any) {
		if dl, ok := evt.(*actor.DeadLetterEvent); ok {
			if env, ok := dl.Message.(*envelope); ok {
				env.respond(&failure{Err: ErrStopped})
			}
		}
	})
}

// mutate sends a mutation built with its deadline and waits for its reply.
func mutate[T any](ctx context.Context, s *System, to destination, build func(deadline time.Time) *envelope) (T, error) {
	var zero T
	dl := s.deadline(ctx)
	if !time.Now().Before(dl) {
		return zero, fmt.Errorf("%w: %w", ErrExpired, context.DeadlineExceeded)
	}
	res, err := s.askUntil(to, build(dl), dl.Add(commitGrace))
	if err != nil {
		return zero, err
	}
	r, ok := res.(T)
	if !ok {
		return zero, fmt.Errorf("%w: %T", ErrUnexpectedReply, res)
	}
	return r, nil
}

// askFor asks to and expects a reply of type T.
func askFor[T any](ctx context.Context, s *System, to destination, env *envelope) (T, error) {
	var zero T
	res, err := s.ask(ctx, to, env)
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
	if s.remote(id) {
		return s.loadRemote(id)
	}
	snap, err := askFor[*snapshot](ctx, s, s.shardOf(id), &envelope{ID: id, Sent: time.Now(), Msg: &getAccount{}})
	if err != nil {
		return nil, err
	}
	return snap.Account, nil
}

// Apply runs one Change on an account through its actor and returns the
// Change's reply once the change is durably committed.
func (s *System) Apply(ctx context.Context, id storage.AccountID, c Change) (any, error) {
	if s.clustered() {
		return s.applyHere(ctx, id, c)
	}
	ch, err := mutate[*changed](ctx, s, s.shardOf(id), func(dl time.Time) *envelope {
		return &envelope{ID: id, Sent: time.Now(), Msg: &applyChange{Change: c, Deadline: dl}}
	})
	if err != nil {
		return nil, err
	}
	return ch.Reply, nil
}

// ChangeFunc is a Change written as a function whose reply is an R: the
// typed form Apply takes, e.g. a change type's method
// func (c *dropChange) apply(tx *Tx) (*dropResult, error).
type ChangeFunc[R any] func(tx *Tx) (R, error)

// Apply implements Change.
func (f ChangeFunc[R]) Apply(tx *Tx) (any, error) { return f(tx) }

// Apply runs fn on account id as System.Apply runs a Change, and returns
// its reply as the R fn returns: the caller asserts no type.
func Apply[R any](ctx context.Context, s *System, id storage.AccountID, fn ChangeFunc[R]) (R, error) {
	var zero R
	res, err := s.Apply(ctx, id, fn)
	if err != nil {
		return zero, err
	}
	r, ok := res.(R)
	if !ok {
		// Only a reply that is no R (nil for an interface R) gets here.
		return zero, fmt.Errorf("%w: %T", ErrUnexpectedReply, res)
	}
	return r, nil
}

// NewAccount describes an account to create.
type NewAccount struct {
	Login       string
	ParentLogin string // non-empty: create a sub-account of that main account
	// Address is the client address a player registered from ("" for an
	// operator's command): recorded in the same commit as the account
	// (storage.DB.RegisteredFrom).
	Address string
	// LoginSkeleton is the login's look-alike skeleton (host/login's
	// Skeleton), written insert-if-absent with the account: ErrLoginLookalike
	// when another login holds it. "" writes none.
	LoginSkeleton string
	// Account holds everything but ID, SuperID and Login, which the registry
	// assigns: profile, SRP verifier, starting balances.
	Account storage.Account
}

// CreateAccount creates an account through the registry and returns it.
// Creations that arrive while another commits share the next commit (see
// createGroup); a sub-account is created alone, by its parent's actor
// (createSub).
func (s *System) CreateAccount(ctx context.Context, req *NewAccount) (*storage.Account, error) {
	if req.ParentLogin != "" {
		return s.createSub(ctx, req)
	}
	dl := s.deadline(ctx)
	if !time.Now().Before(dl) {
		return nil, fmt.Errorf("%w: %w", ErrExpired, context.DeadlineExceeded)
	}
	return s.createGrouped(req, dl)
}

// EnsureMeta returns the metadata value name, storing value first when the
// database has none (generated secrets). The registry is its single writer.
// It carries no deadline: the write is idempotent (a later call returns the
// stored value), so a timeout that hides it is harmless — callers must use
// the returned value, never their own after an error.
func (s *System) EnsureMeta(ctx context.Context, name string, value []byte) ([]byte, error) {
	m, err := askFor[*metaValue](ctx, s, s.registry, &envelope{Msg: &ensureMeta{Name: name, Value: value}})
	if err != nil {
		return nil, err
	}
	return m.Value, nil
}

// UpdateGlobal runs fn in the registry, the single writer of every global
// keyspace, and commits what fn wrote through its GlobalTx as one synced
// batch before returning fn's reply. When fn errs nothing is written. fn
// must be quick: global updates run one at a time. fn may run up to five
// times: when another registry (a cluster's other node) committed a global
// update since fn read, the commit is refused and fn runs again on the
// newer records, so it must only read and return, with no effect of its
// own.
func (s *System) UpdateGlobal(ctx context.Context, fn func(*GlobalTx) (any, error)) (any, error) {
	ch, err := mutate[*changed](ctx, s, s.registry, func(dl time.Time) *envelope {
		return &envelope{Msg: &updateGlobal{Fn: fn, Deadline: dl}}
	})
	if err != nil {
		return nil, err
	}
	return ch.Reply, nil
}

// GlobalVersion changes every time this system commits a write to the
// global keyspace named name, so that a cache of global records compares a
// number instead of re-reading storage. On a single node no other writer
// exists (one process opens a data directory at a time); in cluster mode
// other nodes' writes move it through SyncGlobalVersions.
func (s *System) GlobalVersion(name string) uint64 { return s.version(name).Load() }

func (s *System) version(name string) *atomic.Uint64 {
	if v, ok := s.versions.Load(name); ok {
		return v.(*atomic.Uint64)
	}
	v, _ := s.versions.LoadOrStore(name, new(atomic.Uint64))
	return v.(*atomic.Uint64)
}

// Session returns the session of cookie, expired or not: from memory when
// cached, else from storage (and then cached). The account's actor updates
// the cache whenever it writes or deletes one of its sessions, so a cached
// session is never stale (in cluster mode, see clusterSession).
// storage.ErrNotFound when there is none.
func (s *System) Session(cookie string) (*storage.Session, error) {
	key := storage.SessionHash(cookie)
	if s.clustered() {
		return s.clusterSession(cookie, key)
	}
	if c, ok := s.sessions.Get(cacheKey(key)); ok {
		return c.Session(cookie, key), nil
	}
	gen := s.sessions.Gen(cacheKey(key))
	sess, err := s.db.SessionByKey(key)
	if err != nil {
		return nil, err
	}
	s.sessions.Fill(cacheKey(key), sess.Compact(), gen)
	sess.Cookie = cookie
	return sess, nil
}

// homeSession is a session cached in cluster mode, with the number of
// the activation of its account it is valid for (child.act).
type homeSession struct {
	s   storage.CompactSession
	act uint64
}

// clusterSession is Session in cluster mode. Another node may write an
// account's sessions, but only through an activation of the account
// there, which first stores a newer owner epoch: from then on this
// node's activation is fenced (its next write is refused and it stops).
// So a session read here after this node's activation of its account
// stored its epoch stays what storage holds for as long as that
// activation is the account's owner, and it is cached for that
// activation only: the account's own writes here keep it current
// (cacheSession), and it is not used once the activation has stopped or
// reloaded. In the moment when another node has taken the account and
// this activation has not yet learnt it, a request here may see a
// session as it was, as it sees the account's other records (and any
// write it attempts is refused); the same holds without the cache, for
// the account's records.
func (s *System) clusterSession(cookie string, key [32]byte) (*storage.Session, error) {
	k := cacheKey(key)
	if c, ok := s.homeSessions.Get(k); ok && c.act != 0 && s.shardOf(c.s.AccountID()).loadedAct(c.s.AccountID()) == c.act {
		return c.s.Session(cookie, key), nil
	}
	gen := s.homeSessions.Gen(k)
	before := s.activations.Load() // every activation numbered so far had stored its epoch
	sess, err := s.db.SessionByKey(key)
	if err != nil {
		return nil, err
	}
	s.routes.Set(k, sess.AccountID)
	if act := s.shardOf(sess.AccountID).loadedAct(sess.AccountID); act != 0 && act <= before {
		s.homeSessions.Fill(k, homeSession{s: sess.Compact(), act: act}, gen)
	}
	sess.Cookie = cookie
	return sess, nil
}

// cacheSession caches a session an account's actor committed (act: the
// number of its activation, in cluster mode).
func (s *System) cacheSession(key [32]byte, c storage.CompactSession, act uint64) {
	if !s.clustered() {
		s.sessions.Set(cacheKey(key), c)
		return
	}
	s.homeSessions.Set(cacheKey(key), homeSession{s: c, act: act})
	s.routes.Set(cacheKey(key), c.AccountID())
}

// uncacheSession forgets a session deleted (or of unknown state).
func (s *System) uncacheSession(key [32]byte) {
	if !s.clustered() {
		s.sessions.Remove(cacheKey(key))
		return
	}
	s.homeSessions.Remove(cacheKey(key))
	s.routes.Remove(cacheKey(key))
}

// Clustered reports whether the system runs in cluster mode.
func (s *System) Clustered() bool { return s.clustered() }

// SessionAccount names the account of session cookie, for routing a
// request to that account's node: a session seen once here is not read
// from storage again. The name may be out of date (the session has ended
// since): the account's node, which checks the session itself
// (Session), refuses such a request. storage.ErrNotFound: no such
// session.
func (s *System) SessionAccount(cookie string) (storage.AccountID, error) {
	if s.clustered() {
		k := cacheKey(storage.SessionHash(cookie))
		if id, ok := s.routes.Get(k); ok {
			return id, nil
		}
		if c, ok := s.homeSessions.Get(k); ok {
			return c.s.AccountID(), nil
		}
	}
	sess, err := s.Session(cookie)
	if err != nil {
		return 0, err
	}
	return sess.AccountID, nil
}

// sessionCacheKey is the first half of a session's key (the SHA-256 of its
// cookie), the session cache's key: 16 bytes less per cached session in
// the entry and as many in the cache's map (100k sessions: ~4 MiB). Two
// live sessions share a cache key with a probability of about n²/2^129, and
// finding a cookie whose hash starts like another session's is a search of
// 2^128/n, as hard as guessing that session's 128-bit cookie itself.
type sessionCacheKey [16]byte

func cacheKey(k [32]byte) sessionCacheKey { return sessionCacheKey(k[:16]) }

// cacheShard spreads the session caches' keys over their shards.
func cacheShard(k sessionCacheKey) uint32 { return uint32(k[0]) | uint32(k[1])<<8 }

// CachedSessions is the number of sessions held in memory.
func (s *System) CachedSessions() int {
	if s.clustered() {
		return s.homeSessions.Len()
	}
	return s.sessions.Len()
}

// Snapshot returns the state of a live account without asking its actor
// (no message, no copy): the state as of the account's last committed
// change. It is shared and strictly read-only (never edit it or anything it
// holds). An account whose actor is not live is loaded through it first.
// Use it for reads whose answer does not feed a write; a change reads the
// account in its Tx instead.
func (s *System) Snapshot(ctx context.Context, id storage.AccountID) (*storage.Account, error) {
	if s.remote(id) {
		return s.loadRemote(id)
	}
	if a := s.shardOf(id).published(id); a != nil {
		return a, nil
	}
	if _, err := s.Read(ctx, id, func(*storage.Account) any { return nil }); err != nil {
		return nil, err
	}
	if a := s.shardOf(id).published(id); a != nil {
		return a, nil
	}
	return s.Account(ctx, id) // passivated in between: a private copy
}

// Published returns the state of account id if its actor is live (as
// Snapshot, shared and strictly read-only), else nil: unlike Snapshot it
// never loads the account. For reads that can fall back to storage
// themselves (pre_auth's verifier) without keeping an account in memory.
//
// In cluster mode it is always nil: another node may have changed the
// account (a transient activation, see Placement) without this node's
// actor knowing before its next write, and a stale verifier would let an
// old password log in.
func (s *System) Published(id storage.AccountID) *storage.Account {
	if s.clustered() {
		return nil
	}
	return s.shardOf(id).published(id)
}

// Read runs fn on the account's current state inside its actor and returns
// fn's result, without copying the account. fn must only read, must not keep
// the account or any part of it, and must be quick: it runs in the actor.
func (s *System) Read(ctx context.Context, id storage.AccountID, fn func(*storage.Account) any) (any, error) {
	if s.remote(id) {
		a, err := s.loadRemote(id)
		if err != nil {
			return nil, err
		}
		return readRecovered(fn, a.WithIndex(storage.NewOwnedIndex(a.Upgrades)))
	}
	ch, err := askFor[*changed](ctx, s, s.shardOf(id), &envelope{ID: id, Sent: time.Now(), Msg: &readAccount{Fn: fn}})
	if err != nil {
		return nil, err
	}
	return ch.Reply, nil
}
