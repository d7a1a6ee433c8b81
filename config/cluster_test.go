package config

import (
	"strings"
	"testing"
	"time"
)

// TestClusterEtcdSettingsValidated: provider "etcd" needs its endpoints,
// each a host:port, and keys its members can be named by.
func TestClusterEtcdSettingsValidated(t *testing.T) {
	etcd := func(edit func(cl *Cluster)) func(c *Config) {
		return func(c *Config) {
			c.Storage.Backend, c.Storage.Postgres.URL = BackendPostgres, "postgres://hon@db:5432/hon"
			c.Cluster.Enabled, c.Cluster.Provider = true, "etcd"
			c.Cluster.EtcdEndpoints = []string{"10.0.0.5:2379", "etcd-2.example.org:2379"}
			edit(&c.Cluster)
		}
	}
	tests := []struct {
		name    string
		edit    func(c *Config)
		wantKey string // "" = valid
	}{
		{"etcd", etcd(func(*Cluster) {}), ""},
		{"etcd with prefix", etcd(func(cl *Cluster) { cl.EtcdPrefix = "/communities/eu" }), ""},
		{"etcd without endpoints", etcd(func(cl *Cluster) { cl.EtcdEndpoints = nil }), "cluster.etcd_endpoints"},
		{"etcd endpoint without port", etcd(func(cl *Cluster) { cl.EtcdEndpoints = []string{"10.0.0.5"} }), "cluster.etcd_endpoints"},
		{"etcd endpoint without host", etcd(func(cl *Cluster) { cl.EtcdEndpoints = []string{":2379"} }), "cluster.etcd_endpoints"},
		{"etcd endpoint bad port", etcd(func(cl *Cluster) { cl.EtcdEndpoints = []string{"db:etcd"} }), "cluster.etcd_endpoints"},
		{"etcd prefix relative", etcd(func(cl *Cluster) { cl.EtcdPrefix = "honmaster" }), "cluster.etcd_prefix"},
		{"etcd prefix trailing slash", etcd(func(cl *Cluster) { cl.EtcdPrefix = "/honmaster/" }), "cluster.etcd_prefix"},
		{"etcd name with slash", etcd(func(cl *Cluster) { cl.Name = "eu/west" }), "cluster.name"},
		{"etcd no dial timeout", etcd(func(cl *Cluster) { cl.EtcdDialTimeout = Duration{} }), "cluster.etcd_dial_timeout"},
		// A node stops serving after 3/4 of (probe_failures-1) x
		// probe_interval + probe_timeout without running: at least 100ms.
		{"self-fence deadline too short", etcd(func(cl *Cluster) {
			cl.ProbeFailures, cl.ProbeInterval, cl.ProbeTimeout = 1, Duration{time.Second}, Duration{100 * time.Millisecond}
		}), "cluster.probe_interval"},
		{"self-fence deadline long enough", etcd(func(cl *Cluster) {
			cl.ProbeFailures, cl.ProbeInterval, cl.ProbeTimeout = 1, Duration{time.Second}, Duration{200 * time.Millisecond}
		}), ""},
		{"static ignores etcd settings", etcd(func(cl *Cluster) {
			cl.Provider, cl.EtcdEndpoints, cl.EtcdPrefix = "static", []string{"nonsense"}, "nonsense"
		}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.edit(c)
			err := c.Validate()
			if tt.wantKey == "" {
				if err != nil {
					t.Fatalf("Validate() = %v", err)
				}
				return
			}
			ps := Problems(err)
			if len(ps) != 1 || ps[0].Key != tt.wantKey {
				t.Fatalf("Validate() = %v, want one problem for %s", err, tt.wantKey)
			}
		})
	}
}

// TestClusterListenOffLoopbackNeedsTLS: without certificates the cluster
// port admits anyone who reaches it, so a cluster.listen off loopback is
// refused with a sentence naming the way out; the three TLS files go
// together.
func TestClusterListenOffLoopbackNeedsTLS(t *testing.T) {
	tests := []struct {
		listen        string
		cert, key, ca string
		wantKey       string // "" = valid
	}{
		{"127.0.0.1:7400", "", "", "", ""},
		{"[::1]:7400", "", "", "", ""},
		{"localhost:7400", "", "", "", ""},
		{"0.0.0.0:7400", "", "", "", "cluster.listen"},
		{":7400", "", "", "", "cluster.listen"},
		{"10.0.0.11:7400", "", "", "", "cluster.listen"},
		{"hon1.internal:7400", "", "", "", "cluster.listen"},
		{"10.0.0.11:7400", "n.pem", "n-key.pem", "ca.pem", ""},
		{"0.0.0.0:7400", "n.pem", "n-key.pem", "ca.pem", ""},
		{"127.0.0.1:7400", "n.pem", "", "ca.pem", "cluster.tls_cert"},
		{"127.0.0.1:7400", "", "", "ca.pem", "cluster.tls_cert"},
	}
	for _, tt := range tests {
		c := Default()
		c.Storage.Backend, c.Storage.Postgres.URL = BackendPostgres, "postgres://hon@db:5432/hon"
		c.Cluster.Enabled, c.Cluster.Listen = true, tt.listen
		c.Cluster.TLSCert, c.Cluster.TLSKey, c.Cluster.TLSCA = tt.cert, tt.key, tt.ca
		err := c.Validate()
		if tt.wantKey == "" {
			if err != nil {
				t.Errorf("listen %q tls %q %q %q: %v", tt.listen, tt.cert, tt.key, tt.ca, err)
			}
			continue
		}
		ps := Problems(err)
		if len(ps) != 1 || ps[0].Key != tt.wantKey {
			t.Errorf("listen %q tls %q %q %q: %v, want one problem for %s", tt.listen, tt.cert, tt.key, tt.ca, err, tt.wantKey)
			continue
		}
		if tt.wantKey == "cluster.listen" {
			for _, want := range []string{"not a loopback address", "honmaster cluster certs", "cluster.tls_ca"} {
				if !strings.Contains(ps[0].Msg, want) {
					t.Errorf("listen %q: %q lacks %q", tt.listen, ps[0].Msg, want)
				}
			}
		}
	}
}

// TestClusterNodesShareAddressLimits: per-address limits were counted by
// each node alone, so an address spread over two nodes registered 5 + 5
// times. A node now keeps its share of each budget.
func TestClusterNodesShareAddressLimits(t *testing.T) {
	c := Default()
	c.Storage.Backend, c.Storage.Postgres.URL = BackendPostgres, "postgres://hon@db:5432/hon"
	c.Cluster.Enabled, c.Cluster.Listen = true, "10.0.0.11:7400"
	c.Cluster.Peers = []string{"10.0.0.12:7400", "10.0.0.11:7400", "10.0.0.12:7400"} // itself and a repeat: one other node
	if n := c.Cluster.NodeCount(); n != 2 {
		t.Fatalf("NodeCount = %d, want 2", n)
	}
	s := c.ShareLimits(2)
	l, d := s.Limits, Default().Limits
	if r := l.RegistrationsPerAddress; r.Burst != d.RegistrationsPerAddress.Burst/2 || r.Every.Duration != 2*d.RegistrationsPerAddress.Every.Duration {
		t.Errorf("registrations %+v, want half of %+v", r, d.RegistrationsPerAddress)
	}
	if l.CloudBytesAddress.Size != d.CloudBytesAddress.Size/2 || l.PreAuthPerAddress != d.PreAuthPerAddress/2 ||
		l.FailedProofsAddress.Burst != d.FailedProofsAddress.Burst/2 || s.Operator.TokenFailures.Burst != c.Operator.TokenFailures.Burst/2 ||
		l.TogglesAddress.Burst != d.TogglesAddress.Burst/2 || l.LoginsAddress.Burst != d.LoginsAddress.Burst/2 {
		t.Errorf("shares: %+v, token failures %+v", l, s.Operator.TokenFailures)
	}
	// What a node counts for the whole cluster anyway, or for itself only,
	// is left whole.
	// An account's writes are all counted on its home node.
	if l.MaxConnectionsPerAddress != d.MaxConnectionsPerAddress || l.FailedProofsLogin != d.FailedProofsLogin || l.TogglesAccount != d.TogglesAccount {
		t.Errorf("connections %d, proofs per login %+v, toggles per account %+v changed", l.MaxConnectionsPerAddress, l.FailedProofsLogin, l.TogglesAccount)
	}
	if c.Limits != d {
		t.Error("ShareLimits changed the configuration it was called on")
	}
	// A limit turned off stays off; a burst below the share keeps 1.
	c.Limits.ReportsAddress = Rate{}
	c.Limits.GuideVotesGuideAddress = Rate{Burst: 1, Every: Duration{time.Hour}}
	s = c.ShareLimits(3)
	if s.Limits.ReportsAddress.Burst != 0 || s.Limits.GuideVotesGuideAddress.Burst != 1 {
		t.Errorf("reports %+v, votes per guide %+v", s.Limits.ReportsAddress, s.Limits.GuideVotesGuideAddress)
	}
	if c.ShareLimits(1) != c {
		t.Error("one node: not the configuration itself")
	}
	// A node's share of the cloud bytes keeps at least one upload of
	// cloud.max_upload: 1 MiB over 4 nodes gave 256 KiB, so an upload
	// above it could never be stored (the bucket never holds its bytes).
	c.Limits.CloudBytesAddress.Size = 1 * MiB // valid: at least cloud.max_upload
	if c.Cloud.MaxUpload > 1*MiB || c.Cloud.MaxUpload <= 256*KiB {
		t.Fatalf("cloud.max_upload %s: the case needs one between 256 KiB and 1 MiB", c.Cloud.MaxUpload)
	}
	if s := c.ShareLimits(4); s.Limits.CloudBytesAddress.Size != s.Cloud.MaxUpload {
		t.Errorf("1 MiB of cloud bytes shared by 4 nodes: %s a node, want one upload, %s", s.Limits.CloudBytesAddress.Size, s.Cloud.MaxUpload)
	}
	c.Cluster.Nodes = 5
	if n := c.Cluster.NodeCount(); n != 5 {
		t.Errorf("cluster.nodes 5: NodeCount %d", n)
	}
	c.Cluster.Nodes, c.Cluster.Provider = 0, "etcd"
	if n := c.Cluster.NodeCount(); n != 1 {
		t.Errorf("etcd without cluster.nodes: NodeCount %d, want 1", n)
	}
}

// TestShareLimitsNeverTurnsALimitOff: a node's share of a rate refills n
// times slower, saturated: a long every times the nodes wrapped to a
// negative duration, which every limiter reads as "no limit". Validation
// bounds every too (a year).
func TestShareLimitsNeverTurnsALimitOff(t *testing.T) {
	c := Default()
	c.Limits.GuideVotesGuideAddress = Rate{Burst: 1, Every: Duration{MaxRateEvery}}
	if got := c.ShareLimits(1 << 20).Limits.GuideVotesGuideAddress.Every.Duration; got <= 0 {
		t.Errorf("a million nodes' share of every %s: %v, the limit is off", Duration{MaxRateEvery}, got)
	}
	c.Limits.GuideVotesGuideAddress.Every.Duration = 2_000_000 * time.Hour
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "limits.guide_votes_per_guide_address.every: must be at most 8760h") {
		t.Errorf("every of 2,000,000h: %v, want a refusal naming the key", err)
	}
}
