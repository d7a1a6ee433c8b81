package cluster

import (
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"

	"github.com/honmaster/masterserver/host/cluster/internal/clusterpb"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

// handoverActorName is every node's actor that adopts the pending login
// handshakes of a node that stops gracefully.
const handoverActorName = "honmaster-handover"

// handoverBatch bounds the handshakes of one Handshakes message (each is
// under 1 KiB: far below the cluster port's message limit).
const handoverBatch = 256

// AttachLogin gives the node the login service whose pending handshakes
// it hands over when it stops gracefully (Stop), and which adopts those
// other nodes hand it. Call it before the server serves.
func (n *Node) AttachLogin(l *login.Service) { n.logins.Store(l) }

// handOver hands this node's pending login handshakes (pre_auth served
// here, srpAuth not yet) to their accounts' homes once this node is gone:
// the rendezvous over the other members, as theirs will be once they have
// dropped this node. It runs in Stop after this node stopped serving
// forwarded requests (so no proof can be checked here any more: each
// handshake stays single-use) and before the peers drop it (so the new
// home holds the handshake before any srpAuth can reach it). A handshake
// keeps what was left of its lifetime. Handshakes of logins without an
// account are not handed over: their srpAuth is served wherever it
// arrives, never at a home. A peer that does not take its handshakes
// within ProbeTimeout loses them: those players are asked to log in again,
// as before.
func (n *Node) handOver() {
	l := n.logins.Load()
	if l == nil {
		return
	}
	hs := l.ReleasePending()
	var others []*cluster.Member
	if ms := n.topo.Load(); ms != nil {
		for _, m := range *ms {
			if !n.isSelf(m.Id) {
				others = append(others, m)
			}
		}
	}
	if len(hs) == 0 || len(others) == 0 {
		return
	}
	r := cluster.NewRendezvous()
	r.UpdateMembers(others)
	batches := map[string][]*clusterpb.Handshakes{}
	count := 0
	for _, h := range hs {
		if h.Fake {
			continue
		}
		home := r.GetByClusterIdentity(identityOf(h.Account))
		if home == "" {
			continue
		}
		bs := batches[home]
		if len(bs) == 0 || len(bs[len(bs)-1].Handshakes) == handoverBatch {
			bs = append(bs, &clusterpb.Handshakes{Cluster: n.cfg.Name})
			batches[home] = bs
		}
		last := bs[len(bs)-1]
		last.Handshakes = append(last.Handshakes, toHandshake(h))
		count++
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	lost := 0
	for home, bs := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, b := range bs {
				_, err := n.as.Root.RequestFuture(actor.NewPID(home, handoverActorName), b, n.cfg.ProbeTimeout).Result()
				if err != nil {
					mu.Lock()
					lost += len(b.Handshakes)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if lost > 0 {
		n.log.Warn("pending logins not handed over: those players are asked to log in again", "handshakes", lost)
	}
	n.log.Info("pending logins handed over to their accounts' new nodes", "handshakes", count-lost, "nodes", len(batches))
}

// adoptHandshakes is the handover actor: it gives the login service the
// handshakes a stopping node of this cluster handed over, then answers.
func (n *Node) adoptHandshakes(ctx actor.Context) {
	m, ok := ctx.Message().(*clusterpb.Handshakes)
	if !ok {
		return
	}
	if l := n.logins.Load(); l != nil && m.GetCluster() == n.cfg.Name {
		bad := 0
		for _, h := range m.GetHandshakes() {
			if l.AdoptPending(fromHandshake(h)) != nil {
				bad++
			}
		}
		if bad > 0 {
			n.log.Warn("malformed handed-over logins dropped", "handshakes", bad)
		}
	}
	ctx.Respond(&clusterpb.HandshakesAck{})
}

func toHandshake(h login.Handover) *clusterpb.Handshake {
	return &clusterpb.Handshake{Login: h.Login, Addr: h.Addr, Account: uint32(h.Account), Fake: h.Fake, SysInfo: h.SysInfo,
		RemainingNanos: int64(h.Remaining), SrpLogin: h.SRP.Login, Salt: h.SRP.Salt, V: h.SRP.V, A: h.SRP.A, B: h.SRP.B,
		Secret: h.SRP.Secret}
}

func fromHandshake(m *clusterpb.Handshake) login.Handover {
	return login.Handover{Login: m.GetLogin(), Addr: m.GetAddr(), Account: storage.AccountID(m.GetAccount()), Fake: m.GetFake(),
		SysInfo: m.GetSysInfo(), Remaining: time.Duration(m.GetRemainingNanos()),
		SRP: srp.ServerState{Login: m.GetSrpLogin(), Salt: m.GetSalt(), V: m.GetV(), A: m.GetA(), B: m.GetB(), Secret: m.GetSecret()}}
}
