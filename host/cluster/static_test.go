package cluster

import (
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
