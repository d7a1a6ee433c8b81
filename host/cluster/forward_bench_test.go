//go:build !race

package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// BenchmarkForwardAtHome: the server's cost of a request that reaches its
// account's home node (one in three in a three-node cluster), from
// Forward to its reply, with the test nodes' handler (one ticket added,
// committed to an in-memory store).
func BenchmarkForwardAtHome(b *testing.B) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	nodes := startNodes(b, db, "a", "b")
	waitMembers(b, nodes, 2)
	if _, err := nodes[0].sys.CreateAccount(context.Background(), &actors.NewAccount{Login: "h"}); err != nil {
		b.Fatal(err)
	}
	home := nodes[0]
	id, _ := db.LoginID("h")
	if home.n.rdv.Load().GetByClusterIdentity(identityOf(id)) != home.n.self {
		home = nodes[1]
	}
	r := preAuth("h")
	b.ReportAllocs()
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		rep, handled, err := home.n.Forward(ctx, r, nil)
		cancel()
		if err != nil || !handled || rep.Status != 0 {
			b.Fatalf("%v %v %d %s", err, handled, rep.Status, rep.Body)
		}
	}
}
