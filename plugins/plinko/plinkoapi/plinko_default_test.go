package plinkoapi

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/honmaster/masterserver/plugins/sdk"
)

func TestDefaultOddsSumToOne(t *testing.T) {
	if err := DefaultOdds.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := (&DefaultDecider{}).odds(); got != DefaultOdds {
		t.Fatalf("zero DefaultDecider odds = %v, want %v", got, DefaultOdds)
	}
}

// chiSquare returns Pearson's statistic of observed counts against
// expected probabilities over n draws.
func chiSquare(observed []int, probs []float64, n int) float64 {
	stat := 0.0
	for i, p := range probs {
		e := p * float64(n)
		d := float64(observed[i]) - e
		stat += d * d / e
	}
	return stat
}

// TestDefaultPlinkoTierDistribution is a chi-square goodness-of-fit test of
// the drawn tiers against the configured odds: 6 tiers give df = 5, and the
// critical value at significance 0.001 is 20.515. The source is seeded, so
// the test is deterministic; a broken draw shows up as a huge statistic.
func TestDefaultPlinkoTierDistribution(t *testing.T) {
	const (
		draws    = 200_000
		critical = 20.515 // chi-square, df = 5, p = 0.001
	)
	tests := []struct {
		name string
		odds Odds
	}{
		{"default", DefaultOdds},
		{"custom", Odds{0.10, 0.10, 0.20, 0.20, 0.20, 0.20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &DefaultDecider{Odds: tt.odds, Source: rand.NewPCG(1, 2)}
			facts := DropFacts{Currency: CurrencyTickets, Unowned: [4]int{5, 5, 5, 5}}
			counts := make([]int, NumTiers)
			for range draws {
				d, err := p.Drop(context.Background(), facts)
				if err != nil {
					t.Fatal(err)
				}
				counts[d.Tier-1]++
			}
			stat := chiSquare(counts, tt.odds[:], draws)
			t.Logf("counts %v, chi-square %.3f (critical %.3f)", counts, stat, critical)
			if stat > critical {
				t.Fatalf("chi-square %.3f > %.3f: tiers do not follow odds %v (counts %v)", stat, critical, tt.odds, counts)
			}
		})
	}
}

// TestDefaultPlinkoPrizeUniform checks that the prize pick is uniform over
// the unowned prizes (df = 4, critical value 18.467 at 0.001).
func TestDefaultPlinkoPrizeUniform(t *testing.T) {
	const (
		unowned  = 5
		draws    = 100_000
		critical = 18.467
	)
	p := &DefaultDecider{Odds: Odds{0, 0, 1, 0, 0, 0}, Source: rand.NewPCG(3, 4)}
	counts := make([]int, unowned)
	for range draws {
		d, err := p.Drop(context.Background(), DropFacts{Currency: CurrencyGold, Unowned: [4]int{0, 0, unowned, 0}})
		if err != nil {
			t.Fatal(err)
		}
		counts[d.PrizeIndex]++
	}
	probs := []float64{0.2, 0.2, 0.2, 0.2, 0.2}
	if stat := chiSquare(counts, probs, draws); stat > critical {
		t.Fatalf("chi-square %.3f > %.3f: prize pick not uniform (counts %v)", stat, critical, counts)
	}
}

// only returns odds that always draw tier t.
func only(t Tier) Odds {
	var o Odds
	o[t-1] = 1
	return o
}

func TestDefaultPlinkoDecisions(t *testing.T) {
	tests := []struct {
		name    string
		tier    Tier
		unowned [4]int
		want    DropDecision // PrizeIndex -2: any index in range
	}{
		{"diamond exhausted", TierDiamond, [4]int{0, 9, 9, 9}, DropDecision{Tier: TierDiamond, PrizeIndex: -1, Tickets: 350, Exhausted: true}},
		{"gold exhausted", TierGold, [4]int{9, 0, 9, 9}, DropDecision{Tier: TierGold, PrizeIndex: -1, Tickets: 225, Exhausted: true}},
		{"silver exhausted", TierSilver, [4]int{9, 9, 0, 9}, DropDecision{Tier: TierSilver, PrizeIndex: -1, Tickets: 100, Exhausted: true}},
		{"bronze exhausted", TierBronze, [4]int{9, 9, 9, 0}, DropDecision{Tier: TierBronze, PrizeIndex: -1, Tickets: 80, Exhausted: true}},
		{"60 tickets", TierTickets60, [4]int{9, 9, 9, 9}, DropDecision{Tier: TierTickets60, PrizeIndex: -1, Tickets: 60}},
		{"30 tickets", TierTickets30, [4]int{0, 0, 0, 0}, DropDecision{Tier: TierTickets30, PrizeIndex: -1, Tickets: 30}},
		{"diamond one prize", TierDiamond, [4]int{1, 0, 0, 0}, DropDecision{Tier: TierDiamond, PrizeIndex: 0}},
		{"bronze many prizes", TierBronze, [4]int{0, 0, 0, 7}, DropDecision{Tier: TierBronze, PrizeIndex: -2}},
		{"silver many prizes", TierSilver, [4]int{0, 0, 56, 0}, DropDecision{Tier: TierSilver, PrizeIndex: -2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &DefaultDecider{Odds: only(tt.tier), Source: rand.NewPCG(5, 6)}
			facts := DropFacts{AccountID: 7, Currency: CurrencyTickets, Unowned: tt.unowned}
			for range 1000 {
				d, err := p.Drop(context.Background(), facts)
				if err != nil {
					t.Fatal(err)
				}
				if err := d.Validate(facts); err != nil {
					t.Fatal(err)
				}
				want := tt.want
				if want.PrizeIndex == -2 {
					if n := facts.UnownedOf(tt.tier); d.PrizeIndex < 0 || d.PrizeIndex >= n {
						t.Fatalf("prize index %d outside [0, %d)", d.PrizeIndex, n)
					}
					want.PrizeIndex = d.PrizeIndex
				}
				if d != want {
					t.Fatalf("Drop = %+v, want %+v", d, want)
				}
			}
		})
	}
}

func TestDefaultPlinkoPrizeIndexInRange(t *testing.T) {
	p := &DefaultDecider{Source: rand.NewPCG(7, 8)}
	r := rand.New(rand.NewPCG(9, 10))
	for range 20_000 {
		facts := DropFacts{Currency: CurrencyGold}
		for i := range facts.Unowned {
			facts.Unowned[i] = r.IntN(4) // 0 to 3, so chests often run out
		}
		d, err := p.Drop(context.Background(), facts)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Validate(facts); err != nil {
			t.Fatalf("facts %+v: %v", facts, err)
		}
	}
}

func TestDefaultPlinkoInvalid(t *testing.T) {
	tests := []struct {
		name  string
		odds  Odds
		facts DropFacts
		want  error
	}{
		{"unknown currency", Odds{}, DropFacts{Currency: "silver"}, sdk.ErrInvalidFacts},
		{"empty currency", Odds{}, DropFacts{}, sdk.ErrInvalidFacts},
		{"negative count", Odds{}, DropFacts{Currency: CurrencyTickets, Unowned: [4]int{1, -1, 0, 0}}, sdk.ErrInvalidFacts},
		{"odds over one", Odds{0.5, 0.5, 0.5, 0, 0, 0}, DropFacts{Currency: CurrencyTickets}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &DefaultDecider{Odds: tt.odds}
			_, err := p.Drop(context.Background(), tt.facts)
			if err == nil {
				t.Fatal("Drop succeeded, want an error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("Drop error = %v, want %v", err, tt.want)
			}
		})
	}
	if ps := WithOdds(Odds{1, 1, 0, 0, 0, 0}).Plugin().Configure(context.Background(), Area, nil); len(ps) != 1 || ps[0].Key != "odds" {
		t.Fatalf("Configure with invalid odds = %v, want one problem on key odds", ps)
	}
}

func TestDrawTier(t *testing.T) {
	tests := []struct {
		odds Odds
		u    float64
		want Tier
	}{
		{DefaultOdds, 0, TierDiamond},
		{DefaultOdds, 0.0199, TierDiamond},
		{DefaultOdds, 0.02, TierGold},
		{DefaultOdds, 0.06, TierSilver},
		{DefaultOdds, 0.26, TierBronze},
		{DefaultOdds, 0.51, TierTickets60},
		{DefaultOdds, 0.66, TierTickets30},
		{DefaultOdds, math.Nextafter(1, 0), TierTickets30},
		{Odds{0.5, 0.5 - 1e-12, 0, 0, 0, 0}, math.Nextafter(1, 0), TierGold}, // rounding gap goes to the last non-zero tier
	}
	for _, tt := range tests {
		if got := drawTier(tt.odds, tt.u); got != tt.want {
			t.Errorf("drawTier(%v, %v) = %v, want %v", tt.odds, tt.u, got, tt.want)
		}
	}
}

func TestDefaultPlinkoConcurrent(t *testing.T) {
	p := &DefaultDecider{Source: rand.NewPCG(1, 1)}
	done := make(chan error)
	for range 8 {
		go func() {
			var err error
			for range 500 {
				if _, err = p.Drop(context.Background(), DropFacts{Currency: CurrencyTickets, Unowned: [4]int{1, 2, 3, 4}}); err != nil {
					break
				}
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

func BenchmarkDefaultPlinkoDrop(b *testing.B) {
	p := &DefaultDecider{}
	f := DropFacts{Currency: CurrencyTickets, Unowned: [4]int{3, 10, 40, 56}}
	for b.Loop() {
		if _, err := p.Drop(context.Background(), f); err != nil {
			b.Fatal(err)
		}
	}
}
