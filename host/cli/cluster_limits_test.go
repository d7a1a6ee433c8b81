package cli_test

import (
	"context"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cluster/clustertest"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// TestClusterNodeKeepsItsShareOfAddressLimits: each node counted the
// per-address limits alone, so one address registered 5 + 5 times
// through two nodes. A node of two now keeps half of each budget: with
// registrations_per_address at 4, its third registration from one
// address is refused. (One node on loopback, its peer never started.)
func TestClusterNodeKeepsItsShareOfAddressLimits(t *testing.T) {
	if raceDetector {
		t.Skip("a cluster member in the test process: protoactor's start races under the race detector (docs/cluster.md)")
	}
	pg := storagetest.PostgresURL(t)
	addrs := clustertest.FreeAddrs(t, 2)
	ts := start(t, func(c *config.Config) {
		c.Storage.Backend, c.Storage.Postgres.URL = config.BackendPostgres, pg
		c.Cluster.Enabled, c.Cluster.Name, c.Cluster.Node = true, "shares", "n0"
		c.Cluster.Listen, c.Cluster.Peers = addrs[0], []string{addrs[1]}
		c.Limits.RegistrationsPerAddress = config.Rate{Burst: 4, Every: config.Duration{Duration: time.Hour}}
	})
	for i := range 3 {
		r, err := ts.Client.PostForm(context.Background(), "/portal/register", url.Values{"login": {"share" + strconv.Itoa(i)}, "password": {"pw"}})
		if err != nil {
			t.Fatal(err)
		}
		want := 200
		if i == 2 {
			want = 429
		}
		if r.Status != want {
			t.Fatalf("registration %d from one address: %d %s, want %d", i+1, r.Status, r.Body, want)
		}
	}
}
