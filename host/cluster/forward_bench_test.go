//go:build !race

package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/internal/cpustat"
)

// BenchmarkForward: the cost of a request from Forward to its reply, with
// the test nodes' handler (one ticket added, committed to an in-memory
// store), on two nodes in this process: at its account's home (one
// request in three in a three-node cluster) and from the other node, over
// the cluster port on loopback (two in three). The second counts both
// nodes' work; sequential: one request at a time, parallel: as many as
// RunParallel runs.
func BenchmarkForward(b *testing.B) {
	db := memDB(b)
	nodes := startNodes(b, db, "a", "b")
	waitMembers(b, nodes, 2)
	if _, err := nodes[0].sys.CreateAccount(context.Background(), &actors.NewAccount{Login: "h"}); err != nil {
		b.Fatal(err)
	}
	home, other := nodes[0], nodes[1]
	id, _ := db.LoginID("h")
	if home.n.rdv.Load().GetByClusterIdentity(identityOf(id)) != home.n.self {
		home, other = other, home
	}
	r := preAuth("h")
	once := func(b *testing.B, via *testNode) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		rep, handled, err := via.n.Forward(ctx, r, nil)
		cancel()
		if err != nil || !handled || rep.Status != 0 {
			b.Fatalf("%v %v %d %s", err, handled, rep.Status, rep.Body)
		}
	}
	for _, c := range []struct {
		name string
		via  *testNode
	}{{"home", home}, {"elsewhere", other}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				once(b, c.via)
			}
		})
		b.Run(c.name+"-parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(16)
			defer reportCPU(b)()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					once(b, c.via)
				}
			})
		})
	}
}

// reportCPU reports the process's CPU time (user and system) per
// operation, from the call to the call of the function it returns: the
// cost, where ns/op is the latency.
func reportCPU(b *testing.B) func() {
	start, ok := cpustat.Self()
	return func() {
		if end, _ := cpustat.Self(); ok {
			b.ReportMetric(float64((end-start).Microseconds())/float64(b.N), "cpu-µs/op")
		}
	}
}
