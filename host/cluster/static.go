package cluster

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"

	"github.com/honmaster/masterserver/host/cluster/internal/clusterpb"
	"github.com/honmaster/masterserver/storage"
)

// memberActorName is the well-known actor every node runs to answer probes.
const memberActorName = "honmaster-member"

// staticProvider is the cluster provider of a fixed list of peers (for two
// or three machines, where an etcd would be one more thing to run). Every
// ProbeInterval it asks each peer who it is (Ping/Pong on the link to it,
// stream.go, or through its member actor over protoactor's remote when it
// serves no links); a peer leaves the topology once it missed
// ProbeFailures probes in a row and nothing was heard from it for
// Config.FailureDetection. protoactor blocks a member id that left, for
// good. So a node that may have been dropped never goes on serving under
// its id: it stops serving when it did not run for Config.SelfFence (see
// selfFence), and it leaves (Node.Fatal, to come back under a new id) as
// soon as a peer that answers no longer lists it. Each Pong carries the
// answering node's members for that.
type staticProvider struct {
	n     *Node
	cfg   Config
	c     *cluster.Cluster
	fence *selfFence
	done  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	names map[string]string // member id -> node name
	state map[string]*peerState
	// selfPeer holds the peers that turned out to be this node.
	selfPeer map[string]bool
	// recorded holds the peers the database records as having answered a
	// node of the cluster (storage.DB.ClusterPeers), read when the node is
	// attached (attach); told, those this process recorded (see majority).
	// attached is set by attach, recorded or not.
	recorded, told map[string]bool
	attached       bool
	// gone holds the member ids of the peers that announced their leaving
	// (Leave): they are out of the topology at once.
	gone map[string]bool
	// listedBy holds the member ids of the peers that have listed this
	// node: one that then answers without it has dropped it.
	listedBy map[string]bool
	// peerMembers is the most members a peer that answered the last round
	// lists (Node.Health fails while this node sees fewer).
	peerMembers atomic.Int64
	// mute, in tests, makes the member actor ignore probes (the node looks
	// dead to its peers while it runs on).
	mute atomic.Bool
	// deaf, in tests, makes this node's probes reach no peer (with mute:
	// the node is cut off both ways).
	deaf atomic.Bool
	// started is set once StartMember set c (a link's Ping may come
	// before).
	started atomic.Bool
}

type peerState struct {
	misses int       // probes missed in a row
	heard  time.Time // when its last answer came
	member *cluster.Member
}

func newStaticProvider(n *Node, cfg Config) *staticProvider {
	return &staticProvider{n: n, cfg: cfg, fence: newSelfFence(cfg.SelfFence()), done: make(chan struct{}),
		names: map[string]string{}, state: map[string]*peerState{}, listedBy: map[string]bool{}, gone: map[string]bool{},
		selfPeer: map[string]bool{}, told: map[string]bool{}}
}

func (p *staticProvider) nodeName(id string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.names[id]
}

// suspect reports whether the peer at addr missed its last probe: requests
// are not sent to a node that may be dead or paused (see Node.Forward).
// addr is a member's address as the topology has it (the host:port the
// peer advertises), which need not be how cluster.peers names it (a host
// name, where the peer advertises its IP address): either matches.
func (p *staticProvider) suspect(addr string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for peer, st := range p.state {
		if st.misses > 0 && (peer == addr || st.member != nil && st.member.Address() == addr) {
			return true
		}
	}
	return false
}

// listed reports whether a peer is in the topology at now: known, not
// leaving, and not dropped (it missed fewer than ProbeFailures probes in
// a row, or was heard from within FailureDetection). p.mu is held.
func (p *staticProvider) listed(st *peerState, now time.Time) bool {
	return st.member != nil && !p.gone[st.member.Id] &&
		(st.misses < p.cfg.ProbeFailures || now.Sub(st.heard) < p.cfg.FailureDetection())
}

// leaveDelay is how long after acknowledging a Leave a node drops the
// leaving member from its topology (see answer).
const leaveDelay = 20 * time.Millisecond

// peerLeft drops member id, which announced its leaving (gone), from the
// topology.
func (p *staticProvider) peerLeft(id string) {
	p.mu.Lock()
	members := []*cluster.Member{p.self()}
	now := time.Now()
	for _, st := range p.state {
		if p.listed(st, now) {
			members = append(members, st.member)
		}
	}
	p.mu.Unlock()
	p.n.log.Info("a peer is leaving the cluster", "member", id)
	p.c.MemberList.UpdateClusterTopology(members)
}

// departed implements membership: the member at addr announced its
// leaving (a graceful stop), and answers what it got before it stops.
func (p *staticProvider) departed(addr string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for peer, st := range p.state {
		if st.member != nil && p.gone[st.member.Id] && (peer == addr || st.member.Address() == addr) {
			return true
		}
	}
	return false
}

// leave implements membership: every peer is told that this node is
// leaving, and drops it from its topology at once (within ProbeTimeout;
// a peer that does not answer drops it at its probes). A peer that
// announced its own leaving is not told: it stops answering, and waiting
// ProbeTimeout for it would only slow the stop of a whole cluster, node
// after node.
func (p *staticProvider) leave() {
	if p.c == nil {
		return
	}
	var wg sync.WaitGroup
	for _, peer := range p.toTell() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = p.c.ActorSystem.Root.RequestFuture(actor.NewPID(peer, memberActorName),
				&clusterpb.Leave{Cluster: p.cfg.Name, MemberId: p.c.ActorSystem.ID}, p.cfg.ProbeTimeout).Result()
		}()
	}
	wg.Wait()
}

// toTell is the peers that leave tells: all but those that announced
// their own leaving.
func (p *staticProvider) toTell() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var tell []string
	for _, peer := range p.cfg.Peers {
		if st := p.state[peer]; st == nil || st.member == nil || !p.gone[st.member.Id] {
			tell = append(tell, peer)
		}
	}
	return tell
}

// serving implements membership (see selfFence).
func (p *staticProvider) serving() error { return p.fence.check() }

// mostPeerMembers implements membership.
func (p *staticProvider) mostPeerMembers() int { return int(p.peerMembers.Load()) }

// majority implements membership: of the cluster's nodes it knows of
// (itself, and the peers of its configuration that have answered a node of
// the cluster: this one since it started, or any node before, as the
// database records them), when they are three or more, more than half;
// else 0, where no side of a cut can tell a dead peer from a cut link
// without a witness, and each serves. So the first node of a new cluster
// serves alone until the others start (nodes are started one by one, each
// waited for), while a node that knew the others and lost them fails, and
// so does one restarted while cut off from peers that have answered before.
//
// Attached but with the recorded peers unread (the database failed), it
// fails closed: every configured peer counts.
func (p *staticProvider) majority() int {
	p.mu.Lock()
	unread := p.attached && p.recorded == nil
	n := 1
	for _, peer := range slices.Compact(slices.Sorted(slices.Values(p.cfg.Peers))) {
		if p.selfPeer[peer] {
			continue
		}
		if st := p.state[peer]; unread || st != nil && !st.heard.IsZero() || p.recorded[peer] {
			n++
		}
	}
	p.mu.Unlock()
	if n < 3 {
		return 0
	}
	return n/2 + 1
}

// attach implements membership: it reads the peers the database records,
// before the node's health is asked (Node.Attach), so that a node
// restarted while cut off from them is not healthy for a moment.
func (p *staticProvider) attach(db *storage.DB) {
	rec, err := db.ClusterPeers()
	if err != nil {
		p.n.log.Warn("reading the cluster's recorded peers: every configured peer counts for the majority until it is read", "err", err)
	}
	p.mu.Lock()
	p.attached = true
	if err == nil {
		p.recorded = rec
	}
	p.mu.Unlock()
}

// remember records in the database the peers that answered this round for
// the first time in this process (in the background: a round never waits
// for the database), after reading those recorded before, once the node
// is attached.
func (p *staticProvider) remember(got []probeAnswer) {
	sys := p.n.sys.Load()
	if sys == nil {
		return
	}
	db := sys.DB()
	var todo []string
	p.mu.Lock()
	for _, a := range got {
		if a.pong != nil && !p.selfPeer[a.peer] && !p.told[a.peer] && !p.recorded[a.peer] {
			// Once per process, failed or not: the record only helps a
			// later start, which tries again.
			p.told[a.peer] = true
			todo = append(todo, a.peer)
		}
	}
	p.mu.Unlock()
	for _, peer := range todo {
		p.wg.Add(1) // stop waits for it: no write after the node stopped
		go func() {
			defer p.wg.Done()
			if err := db.RecordClusterPeer(peer); err != nil {
				p.n.log.Warn("recording a cluster peer (a node restarted later counts it once it answers)", "peer", peer, "err", err)
			}
		}()
	}
}

// StartMember implements cluster.ClusterProvider.
func (p *staticProvider) StartMember(c *cluster.Cluster) error {
	p.c = c
	_, err := c.ActorSystem.Root.SpawnNamed(actor.PropsFromFunc(p.answer), memberActorName)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.names[c.ActorSystem.ID] = p.cfg.Node
	p.mu.Unlock()
	p.started.Store(true)
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		p.fence.watch(p.done)
	}()
	go p.loop()
	return nil
}

// StartClient implements cluster.ClusterProvider (nodes are never clients).
func (p *staticProvider) StartClient(c *cluster.Cluster) error { return p.StartMember(c) }

// Shutdown implements cluster.ClusterProvider.
func (p *staticProvider) Shutdown(bool) error { p.stop(); return nil }

func (p *staticProvider) stop() {
	select {
	case <-p.done:
	default:
		close(p.done)
	}
	p.wg.Wait()
}

// self is this node as a member.
func (p *staticProvider) self() *cluster.Member {
	host, port, _ := p.c.ActorSystem.GetHostPort()
	return &cluster.Member{Id: p.c.ActorSystem.ID, Host: host, Port: int32(port), Kinds: []string{KindAccount}}
}

// answer is the member actor: it answers a Ping of this cluster with who
// this node is and the members it sees. A node that left (Node.Fatal)
// answers no more: it is no member.
func (p *staticProvider) answer(ctx actor.Context) {
	if l, ok := ctx.Message().(*clusterpb.Leave); ok {
		// Acknowledged before the topology drops the node: protoactor
		// closes the connection to a member that left, which could lose
		// the acknowledgement.
		ctx.Respond(&clusterpb.LeaveAck{})
		if l.GetCluster() == p.cfg.Name {
			p.mu.Lock()
			p.gone[l.GetMemberId()] = true
			p.mu.Unlock()
			time.AfterFunc(leaveDelay, func() { p.peerLeft(l.GetMemberId()) })
		}
		return
	}
	if ping, ok := ctx.Message().(*clusterpb.Ping); ok {
		if pong := p.pong(ping); pong != nil {
			ctx.Respond(pong)
		}
	}
}

// pong is the answer to a probe (through the member actor, or on a link:
// stream.go), nil for none: this node is muted (tests) or left.
func (p *staticProvider) pong(ping *clusterpb.Ping) *clusterpb.Pong {
	if !p.started.Load() || p.mute.Load() || p.n.left() {
		return nil
	}
	if ping.GetCluster() != p.cfg.Name {
		return &clusterpb.Pong{Cluster: p.cfg.Name}
	}
	m := p.self()
	ms := p.n.Members()
	ids := make([]string, len(ms))
	for i, mb := range ms {
		ids[i] = mb.ID
	}
	return &clusterpb.Pong{Cluster: p.cfg.Name, MemberId: m.Id, Host: m.Host, Port: m.Port, Kinds: m.Kinds, Node: p.cfg.Node,
		Members: ids}
}

func (p *staticProvider) loop() {
	defer p.wg.Done()
	t := time.NewTicker(p.cfg.ProbeInterval)
	defer t.Stop()
	if p.cfg.probeGate != nil {
		select {
		case <-p.cfg.probeGate:
		case <-p.done:
			return
		}
	}
	for {
		if !p.round() {
			return
		}
		select {
		case <-p.done:
			return
		case <-t.C:
		}
	}
}

// probe asks peer who it is, on the link to it (stream.go), or through
// its member actor when it serves no links (an earlier version); nil: no
// answer by deadline.
func (p *staticProvider) probe(peer string, deadline time.Time) *clusterpb.Pong {
	if pong, handled := p.n.probeOn(peer, &clusterpb.Ping{Cluster: p.cfg.Name}, deadline); handled {
		return pong
	}
	wait := time.Until(deadline)
	if wait <= 0 {
		return nil
	}
	res, err := p.c.ActorSystem.Root.RequestFuture(actor.NewPID(peer, memberActorName), &clusterpb.Ping{Cluster: p.cfg.Name}, wait).Result()
	if pong, ok := res.(*clusterpb.Pong); ok && err == nil {
		return pong
	}
	return nil
}

// probeAnswer is a peer's answer to one probe (nil: none).
type probeAnswer struct {
	peer string
	pong *clusterpb.Pong
}

// round probes every peer at once and publishes the topology. It returns
// false once this node left the cluster (a peer that answers dropped it).
//
// A peer is dropped once it missed ProbeFailures probes in a row and
// nothing was heard from it for FailureDetection. While this node is
// fenced (it did not run for a while: see selfFence) its own misses are
// not counted, as its probes' timeouts may have run out during its pause;
// the first round that starts ProbeTimeout + ProbeInterval after the
// fence (when every peer's drop that the pause caused has happened) lifts
// it if every peer that answers still lists this node.
func (p *staticProvider) round() bool {
	start := time.Now()
	answers := make(chan probeAnswer, len(p.cfg.Peers))
	for _, peer := range p.cfg.Peers {
		go func() {
			var pong *clusterpb.Pong
			if !p.deaf.Load() {
				pong = p.probe(peer, start.Add(p.cfg.ProbeTimeout))
			}
			if pong == nil || pong.GetCluster() != p.cfg.Name || pong.GetMemberId() == "" {
				pong = nil
			}
			answers <- probeAnswer{peer, pong}
		}()
	}
	got := make([]probeAnswer, 0, len(p.cfg.Peers))
	for range p.cfg.Peers {
		got = append(got, <-answers)
	}
	// Fenced now (not at the start: the process may have stopped during
	// the round, its probes' timeouts running out meanwhile), check
	// included (the watchdog may not have run since).
	fenced := p.fence.check() != nil
	confirming := p.fence.confirmable(start, p.cfg.ProbeTimeout+p.cfg.ProbeInterval)
	members := []*cluster.Member{p.self()}
	self := p.c.ActorSystem.ID
	var dropped string // a peer that answers without this node, having listed it
	most := 0
	p.mu.Lock()
	for _, a := range got {
		if a.pong != nil && a.pong.MemberId == self {
			// cluster.peers lists this node itself: it is in members
			// once already.
			if !p.selfPeer[a.peer] {
				p.selfPeer[a.peer] = true
				p.n.log.Warn("cluster.peers lists this node itself: ignored", "peer", a.peer)
			}
			continue
		}
		st := p.state[a.peer]
		if st == nil {
			st = &peerState{}
			p.state[a.peer] = st
		}
		now := time.Now()
		if a.pong != nil {
			st.misses = 0
			st.heard = now
			st.member = &cluster.Member{Id: a.pong.MemberId, Host: a.pong.Host, Port: a.pong.Port, Kinds: a.pong.Kinds}
			p.names[a.pong.MemberId] = a.pong.Node
			most = max(most, len(a.pong.Members))
			if slices.Contains(a.pong.Members, self) {
				p.listedBy[a.pong.MemberId] = true
			} else if p.listedBy[a.pong.MemberId] {
				dropped = a.pong.Node
			}
		} else if !fenced {
			st.misses++
		}
		if p.listed(st, now) {
			members = append(members, st.member)
		}
	}
	p.mu.Unlock()
	p.remember(got)
	p.peerMembers.Store(int64(most))
	if dropped != "" && !p.n.stopping.Load() { // (a node that stops has told its peers to drop it)
		p.n.die("node " + dropped + " no longer lists this node (it was paused, starved or cut off long enough to be dropped): " +
			"the other nodes have taken its accounts, and it must come back under a new member id")
		return false
	}
	if confirming {
		p.fence.lift()
		p.n.log.Info("serving again: every peer that answers still lists this node")
	}
	p.c.MemberList.UpdateClusterTopology(members)
	return true
}
