package supervisor

import (
	"testing"
	"time"
)

func TestBackoffDelay(t *testing.T) {
	b := Backoff{Min: 100 * time.Millisecond, Max: time.Second}
	want := []time.Duration{0, 100, 200, 400, 800, 1000, 1000, 1000}
	for n, w := range want {
		if got := b.delay(n); got != w*time.Millisecond {
			t.Errorf("delay(%d) = %v, want %v", n, got, w*time.Millisecond)
		}
	}
	if got := b.delay(1 << 20); got != time.Second {
		t.Errorf("delay(huge) = %v, want the cap", got)
	}
}

func TestOptionsEnsureDefaults(t *testing.T) {
	var o Options
	o.EnsureDefaults()
	if o.Logger == nil || o.Backoff != (Backoff{DefaultBackoffMin, DefaultBackoffMax, DefaultBackoffReset}) {
		t.Fatalf("defaults = %+v", o)
	}
	if got := o.SelfArgs("plinko"); len(got) != 2 || got[0] != "plugin" || got[1] != "plinko" {
		t.Fatalf("SelfArgs = %q", got)
	}
}
