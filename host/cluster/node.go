package cluster

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/cluster/internal/clusterpb"
	"github.com/honmaster/masterserver/storage"
)

// KindAccount is the grain kind of accounts.
const KindAccount = "account"

// Config is a node's part of the [cluster] settings.
type Config struct {
	Name string // the cluster's name: nodes of other clusters are ignored
	Node string // this node's name (for operators; default: the host name)
	// Listen is the host:port of this node's cluster port; Advertise the
	// host:port the others reach it at ("" : Listen).
	Listen, Advertise string
	Peers             []string // the other nodes' cluster addresses (static provider)
	ProbeInterval     time.Duration
	ProbeTimeout      time.Duration
	ProbeFailures     int
	// RequestTimeout bounds a forwarded request (its deadline travels with
	// it, see Forward).
	RequestTimeout time.Duration
	Logger         *slog.Logger

	// probeGate, when set, holds the first probe until it is closed: tests
	// that start several members in one process start them all first,
	// because protoactor's remote sets gRPC's process-wide logger at every
	// start, racing with the gRPC connections of members already probing.
	probeGate <-chan struct{}
}

// Node is this process's membership in the cluster.
type Node struct {
	cfg   Config
	log   *slog.Logger
	as    *actor.ActorSystem
	c     *cluster.Cluster
	prov  *staticProvider
	rdv   atomic.Pointer[cluster.Rendezvous]
	self  string // advertised address
	view  atomic.Pointer[[]Member]
	fatal chan struct{}
	once  sync.Once
	stops sync.Once
	why   atomic.Value // string: why fatal closed

	served atomic.Pointer[ServeLocal]
	sys    atomic.Pointer[actors.System]

	forwarded, forwardFailed, servedHere, servedLocally atomic.Int64
	inflight                                            inflight // forwarded requests served here (see Stop)
}

// Member is one node as this node sees it.
type Member struct {
	ID      string // protoactor member id (new at every start)
	Address string // cluster address
	Node    string // node name
	Self    bool
}

// Start joins the cluster: it listens on cfg.Listen and probes the peers.
func Start(cfg Config) (*Node, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	log := cfg.Logger.With("component", "cluster")
	host, port, err := splitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("cluster listen address %q: %w", cfg.Listen, err)
	}
	adv := cfg.Advertise
	if adv == "" {
		adv = cfg.Listen
	}
	advHost, _, err := splitHostPort(adv)
	if err != nil {
		return nil, fmt.Errorf("cluster advertise address %q: %w", adv, err)
	}
	// The port must be free before protoactor starts (it panics otherwise).
	if ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port))); err != nil {
		return nil, fmt.Errorf("cluster listen address %q: %w", cfg.Listen, err)
	} else {
		_ = ln.Close()
	}
	n := &Node{cfg: cfg, log: log, fatal: make(chan struct{})}
	n.rdv.Store(cluster.NewRendezvous())
	n.as = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return protoactorLogger(log)
	}))
	// gRPC refuses a message past 4 MiB by default, and protoactor sends
	// what it has queued for a node as one message: a few forwarded
	// uploads at once, or one request under a large server.body_limit,
	// would break the connection with every request in flight on it. The
	// peers are this cluster's own nodes (the port is private): accept
	// what protobuf can carry.
	rc := remote.Configure(host, port, remote.WithAdvertisedHost(net.JoinHostPort(advHost, strconv.Itoa(port))),
		remote.WithServerOptions(grpc.MaxRecvMsgSize(math.MaxInt32)))
	n.prov = newStaticProvider(n, cfg)
	kind := cluster.NewKind(KindAccount, actor.PropsFromProducer(func() actor.Actor { return &grain{n: n} }))
	cc := cluster.Configure(cfg.Name, n.prov, disthash.New(), rc,
		cluster.WithKinds(kind),
		cluster.WithRequestTimeout(cfg.RequestTimeout))
	n.c = cluster.New(n.as, cc)
	n.as.EventStream.Subscribe(func(ev any) {
		if t, ok := ev.(*cluster.ClusterTopology); ok {
			n.topology(t.Members)
		}
	})
	startErr := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				startErr <- fmt.Errorf("cluster start: %v", r)
			}
		}()
		n.c.StartMember() // sleeps a second at its end
		startErr <- nil
	}()
	if err := <-startErr; err != nil {
		return nil, err
	}
	n.self = n.as.Address()
	log.Info("cluster member started", "cluster", cfg.Name, "node", cfg.Node, "address", n.self, "peers", cfg.Peers)
	return n, nil
}

func splitHostPort(a string) (string, int, error) {
	h, p, err := net.SplitHostPort(a)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("bad port %q", p)
	}
	return h, port, nil
}

// topology records a new member list (from protoactor's event stream).
func (n *Node) topology(ms []*cluster.Member) {
	r := cluster.NewRendezvous()
	r.UpdateMembers(ms)
	n.rdv.Store(r)
	view := make([]Member, 0, len(ms))
	for _, m := range ms {
		view = append(view, Member{ID: m.Id, Address: m.Address(), Node: n.prov.nodeName(m.Id), Self: m.Id == n.as.ID})
	}
	slices.SortFunc(view, func(a, b Member) int {
		switch {
		case a.Address < b.Address:
			return -1
		case a.Address > b.Address:
			return 1
		}
		return 0
	})
	n.view.Store(&view)
	n.log.Info("cluster topology", "members", len(view))
}

// Node implements actors.Placement.
func (n *Node) Node() string { return n.cfg.Node }

// Home implements actors.Placement: account id's home is this node in its
// current view (the same rendezvous hash disthash places grains by).
func (n *Node) Home(id storage.AccountID) bool {
	return n.rdv.Load().GetByClusterIdentity(identityOf(id)) == n.self
}

// Changed implements actors.Placement: after a transient activation here
// changed account id, the grain on its home is told to start afresh
// (Reactivate), so that the home's live actor drops the state it held
// from before. The grain is found or activated (its start reactivates as
// well) in a goroutine, within ProbeTimeout; a home that cannot be
// reached is not told, and its actor catches up at its next write (which
// the new owner epoch refuses) or when it passivates.
func (n *Node) Changed(id storage.AccountID) {
	ci := identityOf(id)
	home := n.rdv.Load().GetByClusterIdentity(ci)
	if home == "" || home == n.self {
		return
	}
	go func() {
		if pid := n.grainPID(ci, home, time.Now().Add(n.cfg.ProbeTimeout)); pid != nil {
			n.as.Root.Send(pid, &clusterpb.Reactivate{})
		}
	}()
}

func identityOf(id storage.AccountID) *cluster.ClusterIdentity {
	return &cluster.ClusterIdentity{Identity: strconv.FormatUint(uint64(id), 10), Kind: KindAccount}
}

// Members returns the members this node sees now, itself included once it
// has joined.
func (n *Node) Members() []Member {
	if v := n.view.Load(); v != nil {
		return *v
	}
	return nil
}

// Health is nil while this node is a member of the cluster (it sees
// itself in the topology); else it says why not, for /healthz.
func (n *Node) Health() error {
	if msg, ok := n.why.Load().(string); ok {
		return errors.New(msg)
	}
	for _, m := range n.Members() {
		if m.Self {
			return nil
		}
	}
	return fmt.Errorf("not yet a member of cluster %q", n.cfg.Name)
}

// HealthNote describes the membership for a healthy /healthz reply:
// "cluster NAME: member, N nodes: a b c".
func (n *Node) HealthNote() string {
	ms := n.Members()
	names := make([]string, 0, len(ms))
	for _, m := range ms {
		name := m.Node
		if name == "" {
			name = m.Address
		}
		names = append(names, name)
	}
	return fmt.Sprintf("cluster %s: member, %d nodes: %s\n", n.cfg.Name, len(ms), strings.Join(names, " "))
}

// Fatal is closed when the node has left the cluster for good (it was
// paused longer than its lease): the process should exit so that its
// supervisor starts it again under a new member id.
func (n *Node) Fatal() <-chan struct{} { return n.fatal }

func (n *Node) die(why string) {
	n.once.Do(func() {
		n.why.Store(why)
		n.log.Error("leaving the cluster", "reason", why)
		close(n.fatal)
	})
}

// Stats are the node's counters, for metrics.
type Stats struct {
	Forwarded, ForwardFailed, ServedForOthers int64
	// ServedLocally counts requests served here because their account's
	// node could not be reached (see Forward).
	ServedLocally int64
	Members       int
}

// Stats returns the node's counters.
func (n *Node) Stats() Stats {
	return Stats{Forwarded: n.forwarded.Load(), ForwardFailed: n.forwardFailed.Load(),
		ServedForOthers: n.servedHere.Load(), ServedLocally: n.servedLocally.Load(), Members: len(n.Members())}
}

// Stop leaves the cluster: the peers see this node go at their next probe.
// From its start, forwarded requests are refused (nothing done: the
// forwarding node serves them elsewhere); those already being served here
// finish and send their replies first, for at most RequestTimeout.
func (n *Node) Stop() {
	n.stops.Do(func() {
		n.inflight.leave(n.cfg.RequestTimeout)
		n.prov.stop()
		n.c.Shutdown(false)
	})
}
