//go:build !race

package cluster

import (
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/cluster/clustertest"
)

// TestANodeInItsOwnPeersCountsOnce: an operator who gives every node the
// same peers list, this node's own address included, had the node count
// itself twice (a member of two), placing accounts as if there were two.
func TestANodeInItsOwnPeersCountsOnce(t *testing.T) {
	addr := clustertest.FreeAddrs(t, 1)[0]
	n, err := Start(Config{Name: "test", Node: "a", Listen: addr, Peers: []string{addr},
		ProbeInterval: 50 * time.Millisecond, ProbeTimeout: 5 * time.Second, ProbeFailures: 3, RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Stop()
	deadline := time.Now().Add(time.Minute)
	for n.Health() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("never a member: %v", n.Health())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The first topology (from the first probe round, which Ping'd this
	// node itself) makes it a member.
	if ms := n.Members(); len(ms) != 1 {
		t.Fatalf("members %v, want this node once", ms)
	}
}
