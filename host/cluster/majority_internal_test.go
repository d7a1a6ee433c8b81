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
			p.remember(nil) // a round with no answer: reads what the database records
			if got := p.majority(); got != tc.want {
				t.Errorf("majority: %d, want %d", got, tc.want)
			}
		})
	}
}
