package cluster

import (
	"slices"
	"testing"

	"github.com/asynkron/protoactor-go/cluster"
)

// TestSuspectFindsAPeerByItsMemberAddress: Forward and await ask suspect
// with the address the topology gives a member (the host:port the peer
// advertises), while probes are kept by the address in cluster.peers. An
// operator who lists a peer by host name ("hon2:7400") while it
// advertises its IP address must still see that peer suspected once it
// misses a probe; otherwise every request for its accounts waits for the
// request timeout instead of being served elsewhere.
func TestSuspectFindsAPeerByItsMemberAddress(t *testing.T) {
	p := newStaticProvider(nil, Config{Peers: []string{"hon2:7400"}, ProbeFailures: 3})
	// As round records a peer that answered once, then missed a probe.
	p.state["hon2:7400"] = &peerState{misses: 1, member: &cluster.Member{Id: "m2", Host: "10.0.0.12", Port: 7400}}
	if !p.suspect("10.0.0.12:7400") {
		t.Fatal("a peer that missed its last probe is not suspected under the address it advertises")
	}
	if !p.suspect("hon2:7400") {
		t.Fatal("a peer that missed its last probe is not suspected under its configured address")
	}
	p.state["hon2:7400"].misses = 0
	if p.suspect("10.0.0.12:7400") {
		t.Fatal("a peer that answered its last probe is suspected")
	}
	if p.suspect("10.0.0.13:7400") {
		t.Fatal("an address no peer has is suspected")
	}
}

// TestALeavingNodeDoesNotWaitForPeersThatLeft: a node's graceful stop
// tells its peers that it leaves, each within ProbeTimeout. A peer that
// announced its own leaving has stopped answering, so telling it would
// only wait ProbeTimeout: stopping a whole cluster node after node took
// that long more at every node but the first (and the in-process cluster
// tests 5 s more per node).
func TestALeavingNodeDoesNotWaitForPeersThatLeft(t *testing.T) {
	p := newStaticProvider(nil, Config{Peers: []string{"hon2:7400", "hon3:7400", "hon4:7400"}, ProbeFailures: 3})
	p.state["hon2:7400"] = &peerState{member: &cluster.Member{Id: "m2", Host: "10.0.0.12", Port: 7400}}
	p.state["hon3:7400"] = &peerState{member: &cluster.Member{Id: "m3", Host: "10.0.0.13", Port: 7400}}
	// hon4 never answered: it may be starting, and is told.
	p.gone["m3"] = true
	if got, want := p.toTell(), []string{"hon2:7400", "hon4:7400"}; !slices.Equal(got, want) {
		t.Fatalf("a leaving node tells %v, want %v", got, want)
	}
	// hon3 came back under a new member id: it is told again.
	p.state["hon3:7400"].member = &cluster.Member{Id: "m3b", Host: "10.0.0.13", Port: 7400}
	if got, want := p.toTell(), []string{"hon2:7400", "hon3:7400", "hon4:7400"}; !slices.Equal(got, want) {
		t.Fatalf("a leaving node tells %v, want %v", got, want)
	}
}
