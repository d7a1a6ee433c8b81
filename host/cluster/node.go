package cluster

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
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
	"google.golang.org/grpc/keepalive"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/cluster/internal/clusterpb"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/storage"
)

// gossipInterval is how often protoactor's gossip runs (its default is
// 300 ms). Membership does not rest on it (the providers decide the
// topology); it only carries heartbeats, which expire after 20 s, so every
// 2 s is ample and costs an idle cluster less.
const gossipInterval = 2 * time.Second

// KindAccount is the grain kind of accounts.
const KindAccount = "account"

// Config is a node's part of the [cluster] settings.
type Config struct {
	Name string // the cluster's name: nodes of other clusters are ignored
	Node string // this node's name (for operators; default: the host name)
	// Listen is the host:port of this node's cluster port; Advertise the
	// host:port the others reach it at ("" : Listen).
	Listen, Advertise string
	// TLSCert, TLSKey and TLSCA are the PEM files of the cluster port's
	// mutual TLS (all three, or none: then Listen must be on the loopback).
	TLSCert, TLSKey, TLSCA string
	// BodyLimit is the largest HTTP request body (server.body_limit, or
	// server.large_body_limit when larger): the cluster port
	// refuses a message larger than it plus messageOverhead (0: wire's
	// default limit).
	BodyLimit int64
	// Provider finds the members: ProviderStatic (Peers, probed) or
	// ProviderEtcd (EtcdEndpoints). "" : ProviderStatic.
	Provider string
	Peers    []string // the other nodes' cluster addresses (static provider)
	// ProbeInterval, ProbeTimeout and ProbeFailures are the static
	// provider's probes. With either provider, ProbeTimeout also bounds the
	// search for an account's grain, and ProbeInterval how often a
	// forwarded request checks that its node is still a member (Forward).
	ProbeInterval time.Duration
	ProbeTimeout  time.Duration
	ProbeFailures int
	// EtcdEndpoints are the etcd servers (host:port) of the etcd provider;
	// EtcdPrefix the key prefix of this cluster's members ("" :
	// "/honmaster/<Name>", see EtcdKeyPrefix); EtcdDialTimeout bounds the
	// connection to etcd at the start.
	EtcdEndpoints   []string
	EtcdPrefix      string
	EtcdDialTimeout time.Duration
	// RequestTimeout bounds a forwarded request (its deadline travels with
	// it, see Forward).
	RequestTimeout time.Duration
	Logger         *slog.Logger

	// probeGate, when set, holds the first probe (static provider) or the
	// registration in etcd until it is closed: tests
	// that start several members in one process start them all first,
	// because protoactor's remote sets gRPC's process-wide logger at every
	// start, racing with the gRPC connections of members already probing.
	probeGate <-chan struct{}
	// noLinks, set by tests, makes the port serve no forwarding streams,
	// as a node of an earlier version (stream.go).
	noLinks bool
	// keepalive, set by tests, replaces the port's keepalive (transport).
	keepalive *keepalive.ServerParameters
}

// The providers of Config.Provider.
const (
	ProviderStatic = "static"
	ProviderEtcd   = "etcd"
)

// EtcdKeyPrefix is the default key prefix of a cluster's members in etcd.
// protoactor's provider puts each member at
// <prefix>/<cluster>/<cluster>@<member id> and watches <prefix>/<cluster>
// (no trailing slash: a cluster "eu" sharing a prefix with a cluster "eu2"
// would see its members), so every cluster gets a prefix of its own.
func EtcdKeyPrefix(clusterName string) string { return "/honmaster/" + clusterName }

// membership is what the node needs of its cluster provider beside
// protoactor's interface.
type membership interface {
	cluster.ClusterProvider
	// nodeName is the node name of member id, "" when unknown.
	nodeName(id string) string
	// suspect reports whether the member at addr may be dead or paused:
	// requests are not sent to it (see Node.Forward).
	suspect(addr string) bool
	// departed reports whether the member at addr announced its leaving
	// (a graceful stop: it answers what it got before it stops).
	departed(addr string) bool
	// leave hands this node's accounts over before it stops answering:
	// the others drop it from their topology now (a graceful stop).
	leave()
	// stop ends the provider's work and leaves the cluster.
	stop()
	// serving is nil while this node may serve requests; else why not (it
	// did not run for longer than Config.SelfFence and has not confirmed its
	// membership since: see selfFence).
	serving() error
	// mostPeerMembers is the most members a peer that answers lists (0:
	// unknown): while this node sees fewer, it is unhealthy.
	mostPeerMembers() int
	// majority is how many members, this node included, a node must see
	// to be healthy (0: no such bound): fewer, it may be the cut-off side
	// of a split, whose accounts the others serve.
	majority() int
}

// Node is this process's membership in the cluster.
type Node struct {
	cfg   Config
	log   *slog.Logger
	as    *actor.ActorSystem
	c     *cluster.Cluster
	prov  membership
	rdv   atomic.Pointer[cluster.Rendezvous]
	self  string // advertised address
	view  atomic.Pointer[[]Member]
	fatal chan struct{}
	once  sync.Once
	stops sync.Once
	why   atomic.Value // string: why fatal closed
	// joined is set once this node saw itself in the topology, stopping
	// when Stop began: a member that then disappears from its own
	// topology was removed by the others (see topology).
	joined, stopping atomic.Bool

	served atomic.Pointer[ServeLocal]
	sys    atomic.Pointer[actors.System]
	logins atomic.Pointer[login.Service]     // see AttachLogin
	topo   atomic.Pointer[[]*cluster.Member] // the members of the last topology

	forwarded, forwardFailed, servedHere, servedLocally atomic.Int64
	servedAtHome                                        atomic.Int64  // see serveAtHome
	servedLinked                                        atomic.Int64  // requests taken from a link while their grain was live here, refusals included (stream.go)
	locals                                              sync.Map      // storage.AccountID → *localGrain of the grains live here
	transient                                           atomic.Int64  // see Stats.TransientChanges
	inflight                                            inflight      // forwarded requests served here (see Stop)
	requestIDs                                          atomic.Uint64 // ids of the requests this node forwards
	cancels                                             cancels       // of the forwarded requests served here
	workers                                             *workers      // that serve them
	links                                               links         // to the peers this node forwards to (stream.go)
	dial                                                []grpc.DialOption
}

// Member is one node as this node sees it.
type Member struct {
	ID      string // protoactor member id (new at every start)
	Address string // cluster address
	Node    string // node name (its address when its provider does not tell)
	Self    bool
}

// Start joins the cluster: it listens on cfg.Listen and probes the peers.
func Start(cfg Config) (*Node, error) {
	if err := cfg.validateTimings(); err != nil {
		return nil, err
	}
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
	n := &Node{cfg: cfg, log: log, fatal: make(chan struct{}), workers: newWorkers()}
	streams := n.serveStream
	if cfg.noLinks {
		streams = nil
	}
	opts, dial, err := transport(cfg, log, host, advHost, streams)
	if err != nil {
		return nil, err
	}
	n.dial = dial
	// The port must be free before protoactor starts (it panics otherwise).
	if ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port))); err != nil {
		return nil, fmt.Errorf("cluster listen address %q: %w", cfg.Listen, err)
	} else {
		_ = ln.Close()
	}
	// Request ids start anywhere: a node restarted under the same name must
	// not reuse its earlier run's ids, which a home may still hold.
	n.requestIDs.Store(rand.Uint64())
	n.rdv.Store(cluster.NewRendezvous())
	n.as = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return protoactorLogger(log)
	}))
	if _, err := n.as.Root.SpawnNamed(actor.PropsFromFunc(n.adoptHandshakes), handoverActorName); err != nil {
		return nil, fmt.Errorf("cluster start: %w", err)
	}
	rc := remote.Configure(host, port, append(opts, remote.WithAdvertisedHost(net.JoinHostPort(advHost, strconv.Itoa(port))))...)
	switch cfg.Provider {
	case ProviderStatic, "":
		n.prov = newStaticProvider(n, cfg)
	case ProviderEtcd:
		if cfg.EtcdPrefix == "" {
			cfg.EtcdPrefix = EtcdKeyPrefix(cfg.Name)
			n.cfg = cfg
		}
		if n.prov, err = newEtcdMembership(n, cfg); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("cluster provider %q: must be %q or %q", cfg.Provider, ProviderStatic, ProviderEtcd)
	}
	kind := cluster.NewKind(KindAccount, actor.PropsFromProducer(func() actor.Actor { return &grain{n: n} }))
	cc := cluster.Configure(cfg.Name, n.prov, disthash.New(), rc,
		cluster.WithKinds(kind),
		cluster.WithRequestTimeout(cfg.RequestTimeout),
		func(c *cluster.Config) { c.GossipInterval = gossipInterval })
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
		n.prov.stop()
		return nil, err
	}
	n.self = n.as.Address()
	if cfg.Provider == ProviderEtcd {
		log.Info("cluster member started", "cluster", cfg.Name, "node", cfg.Node, "address", n.self,
			"etcd", cfg.EtcdEndpoints, "etcd_prefix", cfg.EtcdPrefix)
	} else {
		log.Info("cluster member started", "cluster", cfg.Name, "node", cfg.Node, "address", n.self, "peers", cfg.Peers)
	}
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
	topo := slices.Clone(ms)
	n.topo.Store(&topo)
	view := make([]Member, 0, len(ms))
	self := false
	for _, m := range ms {
		name := n.prov.nodeName(m.Id)
		if name == "" {
			name = m.Address()
		}
		view = append(view, Member{ID: m.Id, Address: m.Address(), Node: name, Self: n.isSelf(m.Id)})
		self = self || n.isSelf(m.Id)
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
	// A member that no longer sees itself was removed, for good: etcd's
	// provider drops this node when its key goes (its lease expired: the
	// node was paused or cut off from etcd), and the others have taken its
	// accounts and blocked its member id. The static provider always lists
	// this node; protoactor leaves it out only if its own id were ever
	// blocked, which is as final.
	addrs := make(map[string]bool, len(ms))
	for _, m := range ms {
		addrs[m.Address()] = true
	}
	n.membersChanged(addrs)
	if self {
		n.joined.Store(true)
	} else if n.joined.Load() && !n.stopping.Load() {
		n.die("this node was removed from the cluster (its etcd lease expired, or the others dropped it: paused, starved or cut off); the other nodes have taken its accounts")
	}
}

// isSelf reports whether member id is this node: the actor system's id
// (static provider), or "<cluster>@<id>" (the etcd provider's member ids).
func (n *Node) isSelf(id string) bool {
	return id == n.as.ID || id == n.cfg.Name+"@"+n.as.ID
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
// the new owner epoch refuses) or when it passivates. Each call counts in
// Stats.TransientChanges.
func (n *Node) Changed(id storage.AccountID) {
	n.transient.Add(1)
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
// itself in the topology), serves (see Config.SelfFence), sees a majority
// of the nodes it knows of (of three or more, with the static provider:
// a node cut off from the others, which the load balancer may still
// reach, would serve every account as its home beside them), and sees as many
// members as every peer that answers its probes; else it says why not,
// for /healthz. A node that sees fewer members than a peer has dropped a
// node the others still list (its view split from theirs): that node
// leaves and comes back under a new member id, after which the views agree
// again.
func (n *Node) Health() error {
	if msg, ok := n.why.Load().(string); ok {
		return errors.New(msg)
	}
	if err := n.prov.serving(); err != nil {
		return err
	}
	ms := n.Members()
	if !slices.ContainsFunc(ms, func(m Member) bool { return m.Self }) {
		return fmt.Errorf("not yet a member of cluster %q", n.cfg.Name)
	}
	if q := n.prov.majority(); len(ms) < q {
		return fmt.Errorf("this node sees %d members of cluster %q, fewer than a majority of its nodes (%d): it may be cut off from the others, which serve its accounts",
			len(ms), n.cfg.Name, q)
	}
	if most := n.prov.mostPeerMembers(); most > len(ms) {
		return fmt.Errorf("this node sees %d members of cluster %q and a peer sees %d: their views differ until the node they disagree on comes back",
			len(ms), n.cfg.Name, most)
	}
	return nil
}

// left reports whether this node left the cluster for good (Fatal).
func (n *Node) left() bool {
	_, ok := n.why.Load().(string)
	return ok
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

// Fatal is closed when the node has left the cluster for good (a peer that
// answers no longer lists it: it was dropped while paused, starved or cut
// off; or, with etcd, it did not run for longer than its lease): the
// process should exit so that its supervisor starts it again under a new
// member id.
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
	// ServedAtHome counts requests that arrived at their account's home
	// and were served there without passing through the grain
	// (serveAtHome); Forwarded and ServedForOthers count them too, as they
	// did when they passed through it.
	ServedAtHome int64
	// TransientChanges counts the changes this node ran on accounts homed
	// on another node (applied or refused: the activation fences the home
	// either way), each in a transient activation that fenced the home's
	// actor (actors.Placement.Changed): requests served here
	// because their home could not be reached, operators' commands, the
	// shares of a multi-account effect (a match's totals, a gift) of
	// participants homed elsewhere. A request whose route names its
	// account (server.Route.Account) is never one of them while its home
	// answers.
	TransientChanges int64
	Members          int
}

// Stats returns the node's counters.
func (n *Node) Stats() Stats {
	return Stats{Forwarded: n.forwarded.Load(), ForwardFailed: n.forwardFailed.Load(),
		ServedForOthers: n.servedHere.Load(), ServedLocally: n.servedLocally.Load(), ServedAtHome: n.servedAtHome.Load(), TransientChanges: n.transient.Load(),
		Members: len(n.Members())}
}

// Stop leaves the cluster, handing this node's accounts over before it
// stops answering. From its start, forwarded requests are refused (nothing
// done: the forwarding node sends them again, to the account's next home
// once it has dropped this node, or serves them itself); those already
// being served here finish and send their replies first, for at most
// RequestTimeout. Then every peer is told that this node leaves (static
// provider: a Leave each peer acknowledges once this node is out of its
// topology; etcd: its key is deleted), and the node goes on answering
// (refusals) for ProbeInterval more, for the requests that were on their
// way. So a graceful stop answers every request it got, and a rolling
// restart loses none to "outcome unknown". Before the peers are told, the
// logins pending here (pre_auth served, srpAuth not yet) are handed to
// their accounts' new homes (handOver), so that their srpAuth succeeds
// there.
func (n *Node) Stop() {
	n.stops.Do(func() {
		n.stopping.Store(true)
		n.inflight.leave(n.cfg.RequestTimeout)
		n.handOver()
		n.prov.leave()
		time.Sleep(n.cfg.ProbeInterval)
		n.prov.stop()
		n.c.Shutdown(false)
		n.closeLinks()
	})
}
