package dailyplugin

import (
	"errors"
	"testing"

	"github.com/honmaster/masterserver/plugins/examples/daily/dailyapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

func TestDecideStreaks(t *testing.T) {
	cfg := Config{Base: 10, Step: 5, MaxStreak: 3}
	var st dailyapi.State
	steps := []struct {
		day  int64
		want dailyapi.ClaimDecision
	}{
		{100, dailyapi.ClaimDecision{Granted: true, Tickets: 10, Streak: 1}},
		{100, dailyapi.ClaimDecision{Granted: false, Streak: 1}}, // twice on one day
		{101, dailyapi.ClaimDecision{Granted: true, Tickets: 15, Streak: 2}},
		{102, dailyapi.ClaimDecision{Granted: true, Tickets: 20, Streak: 3}},
		{103, dailyapi.ClaimDecision{Granted: true, Tickets: 20, Streak: 4}}, // max_streak reached
		{99, dailyapi.ClaimDecision{Granted: false, Streak: 4}},              // the clock went back
		{105, dailyapi.ClaimDecision{Granted: true, Tickets: 10, Streak: 1}}, // a day missed
	}
	for i, s := range steps {
		var d dailyapi.ClaimDecision
		d, st = Decide(cfg, st, s.day)
		if d != s.want {
			t.Fatalf("step %d (day %d): %+v, want %+v", i, s.day, d, s.want)
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("step %d: the decision fails the contract's check: %v", i, err)
		}
		back, err := dailyapi.Schema.Decode(encode(t, st))
		if err != nil || back != st {
			t.Fatalf("step %d: state %+v round-trips to %+v, %v", i, st, back, err)
		}
	}
}

func TestDecodeStateRefusesGarbage(t *testing.T) {
	for _, b := range [][]byte{{0x80}, append(encode(t, dailyapi.State{LastDay: 5, Streak: 2}), 0), {0x02, 0x01},
		encode(t, dailyapi.State{Streak: 2}), encode(t, dailyapi.State{LastDay: -1, Streak: 1})} {
		if _, err := dailyapi.Schema.Decode(b); !errors.Is(err, sdk.ErrInvalidDecision) {
			t.Errorf("Schema.Decode(%x) = %v", b, err)
		}
		// The plugin refuses the host's garbage as invalid facts.
		_, err := dailyapi.Claim.Decide(t.Context(), Plugin(), sdk.Call[dailyapi.ClaimFacts]{Facts: dailyapi.ClaimFacts{AccountID: 1, Day: 5}, State: b})
		if !errors.Is(err, sdk.ErrInvalidFacts) {
			t.Errorf("the plugin given state %x: %v, want invalid facts", b, err)
		}
	}
}

func encode(t *testing.T, s dailyapi.State) []byte {
	t.Helper()
	b, err := dailyapi.Schema.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestConfigProblemsNameTheirKeys(t *testing.T) {
	ps := sdk.DecodeConfig(map[string]any{"base": int64(0), "max_streak": int64(400), "colour": "blue"}, new(Config))
	keys := map[string]bool{}
	for _, p := range ps {
		keys[p.Key] = true
	}
	for _, k := range []string{"colour"} {
		if !keys[k] {
			t.Errorf("problems %v lack %q", ps, k)
		}
	}
	c := Config{Base: 0, Step: 1, MaxStreak: 400}
	got := map[string]bool{}
	for _, p := range c.Validate() {
		got[p.Key] = true
	}
	if !got["base"] || !got["max_streak"] || got["step"] {
		t.Errorf("Validate named %v, want base and max_streak", got)
	}
}
