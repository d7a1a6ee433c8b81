package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/cluster"
	"github.com/honmaster/masterserver/host/console"
	"github.com/honmaster/masterserver/host/metrics"
	"github.com/honmaster/masterserver/host/server"
)

// startCluster joins the cluster of cfg.Cluster (nil, nil when cluster mode
// is off). It runs before the actors start: they need its placement.
func startCluster(cfg *config.Config, app *App) (*cluster.Node, error) {
	cc := cfg.Cluster
	if !cc.Enabled {
		return nil, nil
	}
	n, err := cluster.Start(cluster.Config{Name: cc.Name, Node: cc.NodeName(), Listen: cc.Listen, Advertise: cc.Advertise,
		TLSCert: cc.TLSCert, TLSKey: cc.TLSKey, TLSCA: cc.TLSCA, BodyLimit: int64(max(cfg.Server.BodyLimit, cfg.Server.LargeBodyLimit)),
		Provider: cc.Provider, Peers: cc.Peers,
		EtcdEndpoints: cc.EtcdEndpoints, EtcdPrefix: cc.EtcdPrefix, EtcdDialTimeout: cc.EtcdDialTimeout.Duration,
		ProbeInterval: cc.ProbeInterval.Duration, ProbeTimeout: cc.ProbeTimeout.Duration,
		ProbeFailures: cc.ProbeFailures, RequestTimeout: cfg.Actors.AskTimeout.Duration + time.Second, Logger: app.Log})
	if err != nil {
		// Its errors name the setting (a certificate, the etcd servers):
		// not a database's.
		return nil, &opError{cause: err, msg: "cannot join the cluster: " + stripInternal(err.Error())}
	}
	return n, nil
}

// placement is the actors' view of the cluster (nil: a single node).
func placement(n *cluster.Node) actors.Placement {
	if n == nil {
		return nil
	}
	return n
}

// attachCluster puts the HTTP host in cluster mode: requests go to their
// account's node, /healthz says whether this node is a member, and what
// other nodes write to global records is seen within
// cluster.sync_interval.
func attachCluster(app *App, srv *server.Server) {
	n := app.Cluster
	if n == nil {
		return
	}
	srv.SetForwarder(n)
	n.Attach(app.Sys, srv.ServeLocal)
	n.AttachLogin(app.Login) // its pending logins move at a graceful stop
	srv.AddHealthCheck("cluster", n.Health)
	// The game port's /healthz counts the members; the operator
	// listener's names the cluster and them.
	srv.SetHealthNote(func() string { return fmt.Sprintf("member, %d nodes\n", len(n.Members())) }, n.HealthNote)
	app.Metrics.SetNode(n.Node())
	app.Metrics.WatchCluster(func() metrics.ClusterStats {
		st := n.Stats()
		return metrics.ClusterStats{Members: st.Members, Forwarded: st.Forwarded, ForwardFailed: st.ForwardFailed,
			ServedForOthers: st.ServedForOthers, ServedLocally: st.ServedLocally, TransientChanges: st.TransientChanges}
	})
}

// areaSyncEvery is how many global-version syncs pass between two runs of
// the areas' Live.Sync (the guides area's rescans every vote record).
const areaSyncEvery = 10

// syncCluster reads, every cluster.sync_interval until ctx ends, which
// global records other nodes changed (so that caches reload them), and
// every areaSyncEvery intervals lets each area catch up with what other
// nodes changed (hostarea.Live.Sync: the guides area brings its vote
// counts to the stored votes).
func (rt *Runtime) syncCluster(ctx context.Context) {
	app := rt.App
	if app.Cluster == nil {
		return
	}
	t := time.NewTicker(app.Cfg.Cluster.SyncInterval.Duration)
	defer t.Stop()
	for i := 1; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if vers, err := app.DB.GlobalVersions(); err != nil {
			app.Log.Warn("cluster: reading global versions", "err", err)
		} else {
			app.Sys.SyncGlobalVersions(vers)
		}
		if i%areaSyncEvery == 0 {
			for _, m := range hostarea.Modules() {
				if live := app.lives[m.Area]; live != nil && live.Sync != nil {
					if err := live.Sync(); err != nil {
						app.Log.Warn("cluster: an area's catch-up with other nodes failed", "area", m.Area, "err", err)
					}
				}
			}
		}
	}
}

// consoleNodes lists the cluster's members for the console (nil: a single
// node).
func consoleNodes(app *App) func() []console.Node {
	n := app.Cluster
	if n == nil {
		return nil
	}
	return func() []console.Node {
		var out []console.Node
		for _, m := range n.Members() {
			out = append(out, console.Node{Name: m.Node, Address: m.Address, Self: m.Self})
		}
		return out
	}
}
