package coinflipplugin

import (
	"errors"
	"testing"

	"github.com/honmaster/masterserver/plugins/examples/coinflip/coinflipapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

func TestDecideKeepsTheStreak(t *testing.T) {
	cfg := Config{Odds: 0.75}
	var st coinflipapi.State
	steps := []struct {
		roll float64
		want coinflipapi.FlipDecision
	}{
		{0.1, coinflipapi.FlipDecision{Won: true, Streak: 1}},
		{0.74, coinflipapi.FlipDecision{Won: true, Streak: 2}},
		{0.75, coinflipapi.FlipDecision{Won: false, Streak: 0}}, // the odds are a strict bound
		{0.0, coinflipapi.FlipDecision{Won: true, Streak: 1}},
	}
	for i, s := range steps {
		var d coinflipapi.FlipDecision
		d, st = Decide(cfg, st, s.roll)
		if d != s.want {
			t.Fatalf("step %d: %+v, want %+v", i, d, s.want)
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("step %d: the decision fails the contract's check: %v", i, err)
		}
		b, err := coinflipapi.Schema.Encode(st)
		if err != nil {
			t.Fatal(err)
		}
		back, err := coinflipapi.Schema.Decode(b)
		if err != nil || back != st {
			t.Fatalf("step %d: state %+v round-trips to %+v, %v", i, st, back, err)
		}
	}
	if want := (coinflipapi.State{Streak: 1, BestStreak: 2, Flips: 4, Wins: 3}); st != want {
		t.Errorf("state after the flips %+v, want %+v", st, want)
	}
}

// TestOddsHold: over many rolls the configured odds hold (rolls spread
// evenly over [0, 1): exactly, not by chance).
func TestOddsHold(t *testing.T) {
	for _, odds := range []float64{0, 0.3, 0.75, 1} {
		var st coinflipapi.State
		for i := range 2000 {
			_, st = Decide(Config{Odds: odds}, st, float64(i)/2000)
		}
		if want := int64(odds * 2000); st.Wins != want || st.Flips != 2000 {
			t.Errorf("odds %v: %d of %d won, want %d", odds, st.Wins, st.Flips, want)
		}
	}
}

func TestStateFromAnotherShapeIsRefused(t *testing.T) {
	impossible, err := coinflipapi.Schema.Encode(coinflipapi.State{Streak: 3, BestStreak: 2, Flips: 5, Wins: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{{0xff}, impossible} {
		if _, err := coinflipapi.Schema.Decode(b); !errors.Is(err, sdk.ErrInvalidDecision) {
			t.Errorf("Schema.Decode(%x) = %v, want an invalid decision", b, err)
		}
	}
	_, err = coinflipapi.Flip.Decide(t.Context(), sdk.TestClient(t, Plugin()), sdk.Call[coinflipapi.FlipFacts]{
		Facts: coinflipapi.FlipFacts{AccountID: 1, Stake: 1}, State: []byte{0xff}})
	if err == nil {
		t.Error("the plugin decided on a state that is no coinflipapi.State")
	}
}

func TestConfigIsValidated(t *testing.T) {
	for _, odds := range []any{1.5, -0.1, "half"} {
		if ps := Plugin().Configure(t.Context(), coinflipapi.Area, map[string]any{"odds": odds}); len(ps) != 1 || ps[0].Key != "odds" {
			t.Errorf("odds %v: problems %v", odds, ps)
		}
	}
	if ps := Plugin().Configure(t.Context(), coinflipapi.Area, map[string]any{"odds": 0.3}); len(ps) != 0 {
		t.Errorf("odds 0.3: problems %v", ps)
	}
}
