package config

import (
	"strings"
	"testing"
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
