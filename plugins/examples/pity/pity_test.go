package pity

import (
	"context"
	"errors"
	"testing"

	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

func TestStateRoundTrip(t *testing.T) {
	for _, s := range []State{{}, {Streak: 3, Drops: 9}, {Streak: 1 << 40, Drops: 1 << 50}} {
		got, err := DecodeState(s.Encode())
		if err != nil || got != s {
			t.Errorf("round trip %+v = %+v, %v", s, got, err)
		}
	}
	if _, err := DecodeState([]byte{0x80}); !errors.Is(err, sdk.ErrInvalidFacts) {
		t.Errorf("truncated state: %v", err)
	}
}

func TestConfigure(t *testing.T) {
	tests := []struct {
		cfg     map[string]any
		problem string // key, "" for none
		after   int64
	}{
		{nil, "", DefaultAfter},
		{map[string]any{"after": float64(3)}, "", 3},
		{map[string]any{"after": float64(0)}, "after", DefaultAfter},
		{map[string]any{"after": 2.5}, "after", DefaultAfter},
		{map[string]any{"after": "x"}, "after", DefaultAfter},
		{map[string]any{"afterr": float64(3)}, "afterr", DefaultAfter},
	}
	for _, tt := range tests {
		tm := &timer{}
		tm.after.Store(DefaultAfter)
		ps := tm.configure(context.Background(), plinkoapi.Area, tt.cfg)
		switch {
		case tt.problem == "" && len(ps) != 0, tt.problem != "" && (len(ps) != 1 || ps[0].Key != tt.problem):
			t.Errorf("%v: problems %v, want key %q", tt.cfg, ps, tt.problem)
		case tm.after.Load() != tt.after:
			t.Errorf("%v: after = %d, want %d", tt.cfg, tm.after.Load(), tt.after)
		}
	}
}

// TestPityFires drives the plugin over gRPC, feeding back the state it
// returns: no run of ticket results is ever longer than N, and the state
// counts every drop.
func TestPityFires(t *testing.T) {
	p := Plugin()
	c := sdk.TestClient(t, p)
	if ps, err := c.Configure(context.Background(), plinkoapi.Area, map[string]any{"after": int64(1)}); err != nil || len(ps) > 0 {
		t.Fatal(ps, err)
	}
	facts := plinkoapi.DropFacts{Currency: plinkoapi.CurrencyTickets, Unowned: [4]int{5, 5, 5, 5}}
	var state []byte
	run, pities := 0, 0
	for i := range 500 {
		res, err := plinkoapi.Drop.Decide(context.Background(), c, sdk.Call[plinkoapi.DropFacts]{Facts: facts, State: state})
		if err != nil {
			t.Fatal(err)
		}
		if res.Decision.Tier.IsChest() {
			if run == 1 {
				pities++
			}
			run = 0
		} else if run++; run > 1 {
			t.Fatalf("drop %d: %d ticket results in a row with after = 1", i, run)
		}
		state = res.State
		st, err := DecodeState(state)
		if err != nil || st.Drops != uint64(i+1) || st.Streak != uint64(run) {
			t.Fatalf("drop %d: state %+v, %v; want streak %d drops %d", i, st, err, run, i+1)
		}
	}
	if pities == 0 {
		t.Fatal("the pity timer never fired")
	}
}
