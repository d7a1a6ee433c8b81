package config

import (
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/honmaster/masterserver/host/limit"
)

// Cluster is the [cluster] table: several nodes serving one community over
// one PostgreSQL database (docs/cluster.md). Off by default; none of it
// changes on a reload (a node's membership is fixed for its life).
type Cluster struct {
	Enabled bool   `toml:"enabled"`
	Name    string `toml:"name"`
	// Node names this node for operators ("" : the host name).
	Node string `toml:"node"`
	// Listen is the cluster port (node-to-node gRPC of protoactor's remote);
	// Advertise the host:port the other nodes reach it at ("" : Listen).
	Listen    string `toml:"listen"`
	Advertise string `toml:"advertise"`
	// TLSCert, TLSKey and TLSCA are PEM files: this node's certificate and
	// key, and the cluster's own CA, which signed every node's certificate
	// (honmaster cluster certs makes them). With them the cluster port
	// speaks mutual TLS and admits only nodes; without them it must listen
	// on the loopback only.
	TLSCert string `toml:"tls_cert"`
	TLSKey  string `toml:"tls_key"`
	TLSCA   string `toml:"tls_ca"`
	// Provider finds the members: "static" (Peers) or "etcd".
	Provider string   `toml:"provider"`
	Peers    []string `toml:"peers"`
	// EtcdEndpoints are the etcd servers of the "etcd" provider (host:port);
	// EtcdPrefix the key prefix of this cluster's members ("" :
	// "/honmaster/<name>"); EtcdDialTimeout bounds the connection to etcd
	// when the node starts.
	EtcdEndpoints   []string `toml:"etcd_endpoints"`
	EtcdPrefix      string   `toml:"etcd_prefix"`
	EtcdDialTimeout Duration `toml:"etcd_dial_timeout"`
	ProbeInterval   Duration `toml:"probe_interval"`
	ProbeTimeout    Duration `toml:"probe_timeout"`
	ProbeFailures   int      `toml:"probe_failures"`
	// Nodes is how many nodes share the per-address limits (NodeCount): 0
	// counts the static peers and this node.
	Nodes int `toml:"nodes"`
	// SyncInterval is how often a node reads which global records (guides,
	// the Plinko catalog, the reports queue) other nodes changed, and how
	// stale a guide's vote counts may be on another node.
	SyncInterval Duration `toml:"sync_interval"`
}

// NodeName is the node's name: Node, or the host name.
func (c Cluster) NodeName() string {
	if c.Node != "" {
		return c.Node
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "node"
}

// NodeCount is how many nodes share the per-address limits (ShareLimits):
// 1 outside cluster mode; cluster.nodes when set; else, with the static
// provider, the distinct peers other than this node's own address, plus
// this node; with etcd (members come and go), 1.
func (c Cluster) NodeCount() int {
	switch {
	case !c.Enabled:
		return 1
	case c.Nodes > 0:
		return c.Nodes
	case c.Provider != "static":
		return 1
	}
	seen := map[string]bool{c.Listen: true, c.Advertise: true}
	n := 1
	for _, p := range c.Peers {
		if !seen[p] {
			seen[p] = true
			n++
		}
	}
	return n
}

// ShareLimits returns the configuration a node of a cluster of n nodes
// (NodeCount) runs with: every per-address budget that a node
// counts alone, of [limits] and the operator's token failures, is cut to
// its share, so that an address spread over all nodes gets about the
// configured budget in all. A rate keeps burst/n at once (at least 1: a
// burst below n allows up to n in all) and refills n times slower; a byte
// budget keeps size/n, but never less than one upload of cloud.max_upload
// (a share below it would refuse every larger upload for good: the
// bucket could never hold its bytes). Not shared: max_connections_per_address (each
// node's own descriptors), failed_proofs_per_login_address (a login's
// proofs are all checked on its account's home) and toggles_per_account
// (an account's writes are all served by its home). Limits.SharedBy
// records n, for the per-address budgets of the areas' own tables. With
// n = 1, c itself.
func (c *Config) ShareLimits(n int) *Config {
	if n <= 1 {
		return c
	}
	s := *c
	l := &s.Limits
	for _, r := range []*Rate{&l.FailedProofsAddress, &l.LoginsAddress, &l.RegistrationsPerAddress, &l.ReportsAddress, &l.GuideVotesAddress,
		&l.GuideVotesGuideAddress, &l.TogglesAddress, &l.ConsoleSignInAddress, &l.ConsoleSignInLogin, &s.Operator.TokenFailures} {
		shared := limit.Rate{Burst: r.Burst, Every: r.Every.Duration}.Share(n)
		r.Burst, r.Every.Duration = shared.Burst, shared.Every
	}
	l.SharedBy = n
	if l.PreAuthPerAddress > 0 {
		l.PreAuthPerAddress = max(1, l.PreAuthPerAddress/n)
	}
	if l.CloudBytesAddress.Size > 0 {
		l.CloudBytesAddress.Size = max(1, s.Cloud.MaxUpload, l.CloudBytesAddress.Size/ByteSize(n))
	}
	return &s
}

func (c *Config) validateCluster(ps *problems) {
	cl := c.Cluster
	if !cl.Enabled {
		return
	}
	if c.Storage.Backend != "postgres" {
		ps.add("cluster.enabled", "cluster mode needs storage.backend = \"postgres\": every node shares that database")
	}
	if cl.Name == "" {
		ps.add("cluster.name", "must not be empty")
	}
	hostPort(ps, "cluster.listen", cl.Listen, false)
	tls := cl.TLSCert != "" || cl.TLSKey != "" || cl.TLSCA != ""
	if tls && (cl.TLSCert == "" || cl.TLSKey == "" || cl.TLSCA == "") {
		ps.add("cluster.tls_cert", "cluster.tls_cert, cluster.tls_key and cluster.tls_ca go together: give all three "+
			"(honmaster cluster certs makes them) or none")
	}
	if host, _, err := net.SplitHostPort(cl.Listen); err == nil && !tls && !IsLoopback(host) {
		ps.add("cluster.listen", "%q is not a loopback address and the cluster port has no certificates, so any machine that reaches it "+
			"could act as a node (send requests in any player's name, stop this node); make the nodes' certificates with "+
			"honmaster cluster certs --out DIR --nodes NAME=ADDRESS,... and set cluster.tls_cert, cluster.tls_key and cluster.tls_ca, "+
			"or listen on 127.0.0.1 (every node on this machine)", cl.Listen)
	}
	if cl.Advertise != "" {
		hostPort(ps, "cluster.advertise", cl.Advertise, true)
	}
	switch cl.Provider {
	case "static":
		for _, p := range cl.Peers {
			hostPort(ps, "cluster.peers", p, true)
		}
	case "etcd":
		if len(cl.EtcdEndpoints) == 0 {
			ps.add("cluster.etcd_endpoints", "provider \"etcd\" needs at least one etcd server (host:port)")
		}
		for _, e := range cl.EtcdEndpoints {
			hostPort(ps, "cluster.etcd_endpoints", e, true)
		}
		// protoactor's etcd provider names a member by the last "/"-separated
		// part of its key, <prefix>/<name>/<name>@<member id>.
		if strings.Contains(cl.Name, "/") {
			ps.add("cluster.name", "must not contain \"/\" with provider \"etcd\" (it is part of the etcd keys), got %q", cl.Name)
		}
		if p := cl.EtcdPrefix; p != "" && (!strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/")) {
			ps.add("cluster.etcd_prefix", "must start with \"/\" and not end with one (like \"/honmaster/eu\"), got %q", p)
		}
		positive(ps, "cluster.etcd_dial_timeout", cl.EtcdDialTimeout)
	default:
		ps.add("cluster.provider", "must be \"static\" or \"etcd\", got %q", cl.Provider)
	}
	positive(ps, "cluster.probe_interval", cl.ProbeInterval)
	positive(ps, "cluster.probe_timeout", cl.ProbeTimeout)
	positive(ps, "cluster.sync_interval", cl.SyncInterval)
	if cl.Nodes < 0 {
		ps.add("cluster.nodes", "must be 0 (count the peers) or the number of nodes, got %d", cl.Nodes)
	}
	if cl.ProbeFailures < 1 {
		ps.add("cluster.probe_failures", "must be at least 1, got %d", cl.ProbeFailures)
	} else if cl.ProbeInterval.Duration > 0 && cl.ProbeTimeout.Duration > 0 {
		// A node stops serving after 3/4 of the others' failure detection
		// without running (host/cluster Config.SelfFence).
		detect := time.Duration(cl.ProbeFailures-1)*cl.ProbeInterval.Duration + cl.ProbeTimeout.Duration
		if fence := detect * 3 / 4; fence < 100*time.Millisecond {
			ps.add("cluster.probe_interval", "a node stops serving after %v without running (3/4 of (probe_failures-1) x probe_interval + probe_timeout), "+
				"which must be at least 100ms: raise probe_interval or probe_failures", fence)
		}
	}
}

// hostPort checks a host:port setting; needHost refuses ":port" (an
// address other machines dial).
func hostPort(ps *problems, key, v string, needHost bool) {
	h, p, err := net.SplitHostPort(v)
	if err != nil {
		ps.add(key, "must be host:port, got %q", v)
		return
	}
	if n, err := strconv.ParseUint(p, 10, 16); err != nil || n == 0 {
		ps.add(key, "port must be a number 1..65535, got %q", p)
	}
	if needHost && h == "" {
		ps.add(key, "needs a host other nodes can reach, got %q", v)
	}
}
