package cluster

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/etcd"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// EtcdLeaseTTL is the TTL of a member's etcd lease: protoactor's etcd
// provider grants its leases for 3 s and renews them every second, and
// offers no setting for it. A member whose lease expires (it died, was
// paused, or lost etcd) is deleted from etcd and dropped by the others.
const EtcdLeaseTTL = 3 * time.Second

// etcdMembership runs protoactor's etcd provider (dynamic membership: each
// member puts a key under a lease, and every member watches the keys of
// its cluster) with what the node needs beside it: a member's name (etcd's
// keys do not carry it: the address stands in), whether a member is
// suspect (it left the topology), and the pause watch that makes a node
// that may have outlived its lease leave (Node.Fatal).
type etcdMembership struct {
	*etcd.Provider
	n      *Node
	cancel context.CancelFunc // the etcd client's context
	done   chan struct{}
	wg     sync.WaitGroup
	stops  sync.Once
	// started: the provider registered this member (so stop deregisters it).
	started bool
	gate    <-chan struct{} // Config.probeGate
}

// newEtcdMembership connects to etcd. It first checks that etcd answers
// within cfg.EtcdDialTimeout with a client of its own: the provider's
// client neither blocks on its dial nor bounds its first read, so an
// unreachable etcd would hang the start instead of failing it.
func newEtcdMembership(n *Node, cfg Config) (*etcdMembership, error) {
	if err := pingEtcd(cfg); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	p, err := etcd.NewWithConfig(cfg.EtcdPrefix, clientv3.Config{Endpoints: cfg.EtcdEndpoints,
		DialTimeout: cfg.EtcdDialTimeout, Context: ctx, Logger: zap.NewNop()})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("etcd at %v: %w", cfg.EtcdEndpoints, err)
	}
	return &etcdMembership{Provider: p, n: n, cancel: cancel, done: make(chan struct{}), gate: cfg.probeGate}, nil
}

func pingEtcd(cfg Config) error {
	c, err := clientv3.New(clientv3.Config{Endpoints: cfg.EtcdEndpoints, DialTimeout: cfg.EtcdDialTimeout, Logger: zap.NewNop()})
	if err != nil {
		return fmt.Errorf("etcd at %v: %w", cfg.EtcdEndpoints, err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.EtcdDialTimeout)
	defer cancel()
	if _, err := c.Get(ctx, cfg.EtcdPrefix, clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil {
		return fmt.Errorf("etcd at %v does not answer: %w", cfg.EtcdEndpoints, err)
	}
	return nil
}

// StartMember implements cluster.ClusterProvider: the provider's, then the
// pause watch.
func (m *etcdMembership) StartMember(c *cluster.Cluster) error {
	if m.gate == nil {
		return m.start(c)
	}
	// Tests: join once every member of the process has started (see
	// Config.probeGate).
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		select {
		case <-m.gate:
		case <-m.done:
			return
		}
		if err := m.start(c); err != nil {
			m.n.log.Error("joining the cluster through etcd", "err", err)
		}
	}()
	return nil
}

func (m *etcdMembership) start(c *cluster.Cluster) error {
	if err := m.Provider.StartMember(c); err != nil {
		return err
	}
	m.started = true
	m.wg.Add(1)
	go m.watchPause()
	return nil
}

// StartClient implements cluster.ClusterProvider (nodes are never clients).
func (m *etcdMembership) StartClient(c *cluster.Cluster) error { return m.StartMember(c) }

// Shutdown implements cluster.ClusterProvider.
func (m *etcdMembership) Shutdown(bool) error { m.stop(); return nil }

// nodeName implements membership: etcd's member records carry no node
// name (the provider owns them), so other members are named by their
// address (Member.Node).
func (m *etcdMembership) nodeName(id string) string {
	if m.n.isSelf(id) {
		return m.n.cfg.Node
	}
	return ""
}

// suspect implements membership: a member is suspect once it has left the
// topology (its key was deleted: it stopped, or its lease expired).
func (m *etcdMembership) suspect(addr string) bool {
	for _, mb := range m.n.Members() {
		if mb.Address == addr {
			return false
		}
	}
	return true
}

// leave implements membership: the member's key is deleted (stop), and the
// others drop it at once.
func (m *etcdMembership) leave() { m.stop() }

// departed implements membership: etcd's records do not tell a graceful
// leaving from a lease's expiry.
func (m *etcdMembership) departed(string) bool { return false }

// serving implements membership: with etcd a node that did not run for
// longer than its lease leaves instead (watchPause).
func (m *etcdMembership) serving() error { return nil }

// mostPeerMembers implements membership: etcd's members do not tell what
// they see.
func (m *etcdMembership) mostPeerMembers() int { return 0 }

// majority implements membership: etcd's own quorum decides membership (a
// node cut off from it loses its lease and leaves).
func (m *etcdMembership) majority() int { return 0 }

// stop deregisters this member (the others drop it at once, not at its
// lease's expiry) and stops the pause watch. cluster.Cluster.Shutdown only
// calls the provider on a graceful shutdown, which also waits seconds for
// grains to move; a node's grains hold nothing to move. The provider keeps
// its etcd client open (it has no way to close it): the process exits
// after Stop.
func (m *etcdMembership) stop() {
	m.stops.Do(func() {
		close(m.done)
		m.wg.Wait()
		if !m.started {
			m.cancel()
			return
		}
		if err := m.Provider.Shutdown(true); err != nil {
			m.n.log.Warn("leaving etcd: the others drop this node when its lease expires", "err", err)
		}
		m.cancel()
	})
}

// pauseTick is how often the pause watch looks at the clock.
const pauseTick = EtcdLeaseTTL / 6

// watchPause leaves the cluster (Node.Fatal) when this process did not run
// for longer than its lease's TTL (SIGSTOP, a frozen VM, starvation): its
// lease may have expired, the others then dropped it and placed its
// accounts elsewhere, and protoactor never lets its member id back in.
// Without this the node would learn it only from etcd's watch, which a
// node cut off from etcd never gets. This only speeds recovery up: the
// database's owner epochs refuse a removed node's writes anyway.
func (m *etcdMembership) watchPause() {
	defer m.wg.Done()
	t := time.NewTicker(pauseTick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-m.done:
			return
		case <-t.C:
			// The monotonic clock runs on while the process is stopped; a
			// tick's own time may be from before the pause.
			now := time.Now()
			if gap := now.Sub(last); gap > EtcdLeaseTTL {
				m.n.die("this node did not run for " + gap.Round(time.Millisecond).String() +
					" (paused or starved), longer than its etcd lease of " + EtcdLeaseTTL.String() +
					": the other nodes may have taken its accounts")
				return
			}
			last = now
		}
	}
}
