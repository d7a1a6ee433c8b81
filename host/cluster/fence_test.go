package cluster

import (
	"strings"
	"testing"
	"time"
)

// TestSelfFenceIsShorterThanFailureDetection: a node stops serving
// strictly before the others may drop it, for the defaults (1.125 s
// against 1.5 s) and any settings; Start refuses settings whose deadline
// is under 100 ms, before it listens.
func TestSelfFenceIsShorterThanFailureDetection(t *testing.T) {
	for _, c := range []Config{
		{ProbeInterval: 500 * time.Millisecond, ProbeTimeout: 500 * time.Millisecond, ProbeFailures: 3},
		{ProbeInterval: 100 * time.Millisecond, ProbeTimeout: 5 * time.Second, ProbeFailures: 3},
		{ProbeInterval: time.Second, ProbeTimeout: 200 * time.Millisecond, ProbeFailures: 1},
	} {
		if f, d := c.SelfFence(), c.FailureDetection(); f >= d || f <= 0 {
			t.Errorf("%+v: self-fence %v, failure detection %v", c, f, d)
		}
	}
	def := Config{ProbeInterval: 500 * time.Millisecond, ProbeTimeout: 500 * time.Millisecond, ProbeFailures: 3}
	if def.FailureDetection() != 1500*time.Millisecond || def.SelfFence() != 1125*time.Millisecond {
		t.Errorf("defaults: failure detection %v, self-fence %v; docs/cluster.md states 1.5 s and 1.125 s", def.FailureDetection(), def.SelfFence())
	}
	_, err := Start(Config{Name: "test", Listen: "127.0.0.1:0", ProbeInterval: time.Second, ProbeTimeout: 50 * time.Millisecond,
		ProbeFailures: 1, RequestTimeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "stops serving") {
		t.Fatalf("Start with a self-fence deadline under 100ms: %v, want refused", err)
	}
}
