package cluster

import (
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"

	"github.com/honmaster/masterserver/host/cluster/internal/clusterpb"
)

// memberActorName is the well-known actor every node runs to answer probes.
const memberActorName = "honmaster-member"

// staticProvider is the cluster provider of a fixed list of peers (for two
// or three machines, where an etcd would be one more thing to run). Every
// ProbeInterval it asks each peer's member actor who it is (Ping/Pong over
// protoactor's remote); the topology is this node plus every peer that
// answered within ProbeTimeout in at least one of its last ProbeFailures
// probes. protoactor blocks a member id that left, for good; a paused node
// notices it (see lease) and exits so that it comes back under a new id.
type staticProvider struct {
	n     *Node
	cfg   Config
	c     *cluster.Cluster
	done  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	names map[string]string // member id -> node name
	state map[string]*peerState
	// selfPeer holds the peers that turned out to be this node.
	selfPeer map[string]bool
}

type peerState struct {
	misses int // probes missed in a row
	member *cluster.Member
}

func newStaticProvider(n *Node, cfg Config) *staticProvider {
	return &staticProvider{n: n, cfg: cfg, done: make(chan struct{}), names: map[string]string{}, state: map[string]*peerState{},
		selfPeer: map[string]bool{}}
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
	p.wg.Add(1)
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
// this node is.
func (p *staticProvider) answer(ctx actor.Context) {
	ping, ok := ctx.Message().(*clusterpb.Ping)
	if !ok {
		return
	}
	if ping.GetCluster() != p.cfg.Name {
		ctx.Respond(&clusterpb.Pong{Cluster: p.cfg.Name})
		return
	}
	m := p.self()
	ctx.Respond(&clusterpb.Pong{Cluster: p.cfg.Name, MemberId: m.Id, Host: m.Host, Port: m.Port, Kinds: m.Kinds, Node: p.cfg.Node})
}

// lease is how long a node may go without completing a probe round before
// it must assume the others removed it: ProbeFailures rounds of
// ProbeInterval plus ProbeTimeout. Beyond it the node leaves (Node.Fatal).
// This only speeds recovery up; writes of a removed node are refused by
// the database's owner epochs whatever the clocks say.
func (p *staticProvider) lease() time.Duration {
	return time.Duration(p.cfg.ProbeFailures) * (p.cfg.ProbeInterval + p.cfg.ProbeTimeout)
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
	p.round()
	lastEnd := time.Now()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
		}
		if p.pausedSince(lastEnd) {
			return
		}
		p.round()
		if p.pausedSince(lastEnd) { // paused during the round
			return
		}
		lastEnd = time.Now()
	}
}

// pausedSince leaves the cluster (Node.Fatal) when more than the lease
// passed since the last probe round ended: the others have dropped this
// node and moved its accounts.
func (p *staticProvider) pausedSince(lastEnd time.Time) bool {
	gap := time.Since(lastEnd)
	if gap <= p.lease() {
		return false
	}
	p.n.die("this node could not probe its peers for " + gap.Round(time.Millisecond).String() +
		" (paused or starved), longer than its lease of " + p.lease().String() + ": the other nodes have taken its accounts")
	return true
}

// round probes every peer at once and publishes the topology.
func (p *staticProvider) round() {
	type answer struct {
		peer string
		pong *clusterpb.Pong
	}
	answers := make(chan answer, len(p.cfg.Peers))
	for _, peer := range p.cfg.Peers {
		go func() {
			f := p.c.ActorSystem.Root.RequestFuture(actor.NewPID(peer, memberActorName), &clusterpb.Ping{Cluster: p.cfg.Name}, p.cfg.ProbeTimeout)
			res, err := f.Result()
			pong, _ := res.(*clusterpb.Pong)
			if err != nil || pong == nil || pong.GetCluster() != p.cfg.Name || pong.GetMemberId() == "" {
				pong = nil
			}
			answers <- answer{peer, pong}
		}()
	}
	members := []*cluster.Member{p.self()}
	p.mu.Lock()
	for range p.cfg.Peers {
		a := <-answers
		if a.pong != nil && a.pong.MemberId == p.c.ActorSystem.ID {
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
		if a.pong != nil {
			st.misses = 0
			st.member = &cluster.Member{Id: a.pong.MemberId, Host: a.pong.Host, Port: a.pong.Port, Kinds: a.pong.Kinds}
			p.names[a.pong.MemberId] = a.pong.Node
		} else {
			st.misses++
		}
		if st.member != nil && st.misses < p.cfg.ProbeFailures {
			members = append(members, st.member)
		}
	}
	p.mu.Unlock()
	p.c.MemberList.UpdateClusterTopology(members)
}
