package cluster

import (
	"log/slog"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// A node of three restarted while cut off from both peers heard no one
// since it started, so it counted itself alone, needed no majority, and
// served every account beside the other two. It counts the peers the
// database records as having answered a node before (any node, any time);
// a new cluster's first node, with none recorded, still serves alone.
// (From a third review; failed before.)
func TestARestartedNodeCountsThePeersItKnewBefore(t *testing.T) {
	for _, tc := range []struct {
		name     string
		recorded []string
		want     int
	}{
		{"a new cluster", nil, 0},
		{"one peer known", []string{"10.0.0.12:7400"}, 0},
		{"both peers known", []string{"10.0.0.12:7400", "10.0.0.13:7400"}, 2},
		{"peers of another configuration", []string{"10.0.0.99:7400", "10.0.0.98:7400"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := storage.Open("", &storage.Options{InMemory: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, a := range tc.recorded {
				if err := db.RecordClusterPeer(a); err != nil {
					t.Fatal(err)
				}
			}
			sys := actors.New(db, actors.Options{})
			defer sys.Shutdown()
			n := &Node{log: slog.New(slog.DiscardHandler)}
			n.sys.Store(sys)
			p := newStaticProvider(n, Config{Peers: []string{"10.0.0.12:7400", "10.0.0.13:7400", "10.0.0.12:7400"}})
			n.prov = p
			// Attach reads what the database records, before the node's
			// health is asked (a round read it, up to a round later).
			n.Attach(sys, nil)
			if got := p.majority(); got != tc.want {
				t.Errorf("majority: %d, want %d", got, tc.want)
			}
		})
	}
}

// Attached with the recorded peers unreadable, a node counts every
// configured peer (it fails closed) rather than none. (From a fourth
// review.)
func TestUnreadRecordedPeersCountAll(t *testing.T) {
	p := newStaticProvider(&Node{log: slog.New(slog.DiscardHandler)}, Config{Peers: []string{"10.0.0.12:7400", "10.0.0.13:7400"}})
	p.attached = true // as attach leaves it when the read failed
	if got := p.majority(); got != 2 {
		t.Errorf("majority with the records unread: %d, want 2 (of three)", got)
	}
}
