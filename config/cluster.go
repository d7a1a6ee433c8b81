package config

import (
	"net"
	"os"
	"strconv"
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
	// Provider finds the members: "static" (Peers) or "etcd".
	Provider      string   `toml:"provider"`
	Peers         []string `toml:"peers"`
	EtcdEndpoints []string `toml:"etcd_endpoints"`
	ProbeInterval Duration `toml:"probe_interval"`
	ProbeTimeout  Duration `toml:"probe_timeout"`
	ProbeFailures int      `toml:"probe_failures"`
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
	if cl.Advertise != "" {
		hostPort(ps, "cluster.advertise", cl.Advertise, true)
	}
	switch cl.Provider {
	case "static":
		for _, p := range cl.Peers {
			hostPort(ps, "cluster.peers", p, true)
		}
	case "etcd":
		ps.add("cluster.provider", "\"etcd\" is not built into this version; use \"static\" with peers (docs/cluster.md)")
	default:
		ps.add("cluster.provider", "must be \"static\" or \"etcd\", got %q", cl.Provider)
	}
	positive(ps, "cluster.probe_interval", cl.ProbeInterval)
	positive(ps, "cluster.probe_timeout", cl.ProbeTimeout)
	positive(ps, "cluster.sync_interval", cl.SyncInterval)
	if cl.ProbeFailures < 1 {
		ps.add("cluster.probe_failures", "must be at least 1, got %d", cl.ProbeFailures)
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
