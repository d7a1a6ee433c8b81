package config

import (
	"net"
	"os"
	"strconv"
	"strings"
	"time"
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
