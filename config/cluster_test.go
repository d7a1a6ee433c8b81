package config

import (
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
