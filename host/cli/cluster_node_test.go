package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
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

// TestClusterCertificateProblemIsSaid: a node whose certificate files
// cannot be read stops at start with a sentence naming the setting (it
// said "cannot open the database" and the bare file error).
func TestClusterCertificateProblemIsSaid(t *testing.T) {
	pg := storagetest.PostgresURL(t)
	conf := loopbackConfig(t, fmt.Sprintf("[storage]\nbackend = \"postgres\"\n[storage.postgres]\nurl = %q\n"+
		"[cluster]\nenabled = true\nname = \"c\"\nlisten = %q\ntls_cert = \"/nonexistent/n.pem\"\ntls_key = \"/nonexistent/n-key.pem\"\n"+
		"tls_ca = \"/nonexistent/ca.pem\"\n", pg, clustertest.FreeAddrs(t, 1)[0]))
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), []string{"serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--config", conf}, &out, &errOut)
	if code == 0 {
		t.Fatal("served without its certificate")
	}
	for _, want := range []string{"cannot join the cluster", "cluster.tls_cert /nonexistent/n.pem"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q: %q", want, errOut.String())
		}
	}
	if strings.Contains(errOut.String(), "cannot open the database") {
		t.Errorf("a certificate problem told as the database's: %q", errOut.String())
	}
}
