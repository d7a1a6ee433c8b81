package plinkoapi

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	mrand "math/rand/v2"
	"sync"

	"github.com/honmaster/masterserver/plugins/sdk"
)

// DefaultDecider is the default plinko decider: it draws a tier with Odds,
// pays ticket tiers and exhausted chests from the game's payout table, and
// picks a prize uniformly among the account's unowned prizes of the tier.
//
// The zero value is ready to use (DefaultOdds, crypto/rand). A custom plugin
// that only changes the odds sets Odds and nothing else, see WithOdds.
// A *DefaultDecider is safe for concurrent use; do not copy it after first use.
type DefaultDecider struct {
	// Name and Version are reported by the plugin's Info; empty means "default" and "1".
	Name, Version string
	// Odds of each tier; the zero value means DefaultOdds.
	Odds Odds
	// Source of randomness; nil means crypto/rand. Tests inject a seeded
	// source (for example rand.NewPCG(1, 2)) for reproducible draws.
	Source mrand.Source

	mu  sync.Mutex // guards rnd: seeded sources are not safe for concurrent use
	rnd *mrand.Rand
}

// WithOdds returns the default decider with other odds. Invalid odds
// make Configure and Drop fail, so a plugin with bad odds fails its start check.
func WithOdds(odds Odds) *DefaultDecider {
	return &DefaultDecider{Odds: odds}
}

// odds returns the odds in use.
func (p *DefaultDecider) odds() Odds {
	if p.Odds == (Odds{}) {
		return DefaultOdds
	}
	return p.Odds
}

// Plugin returns the plugin serving Drop with p. Its Configure
// accepts no keys and reports invalid odds, so a plugin with bad odds fails
// its start.
func (p *DefaultDecider) Plugin() *sdk.Plugin {
	pl := &sdk.Plugin{Name: p.Name, Version: p.Version, Configure: func(_ context.Context, _ sdk.Area, cfg map[string]any) []sdk.ConfigProblem {
		var out []sdk.ConfigProblem
		if err := p.odds().Validate(); err != nil {
			out = append(out, sdk.ConfigProblem{Key: "odds", Message: err.Error()})
		}
		for k := range cfg {
			out = append(out, sdk.ConfigProblem{Key: k, Message: "unknown key"})
		}
		return out
	}}
	if pl.Name == "" {
		pl.Name = "default"
	}
	if pl.Version == "" {
		pl.Version = "1"
	}
	sdk.Handle(pl, Drop, func(ctx context.Context, c sdk.Call[DropFacts]) (sdk.Result[DropDecision], error) {
		d, err := p.Drop(ctx, c.Facts)
		return sdk.Result[DropDecision]{Decision: d}, err
	})
	return pl
}

// Drop draws a tier and, for a chest with unowned prizes, a prize.
func (p *DefaultDecider) Drop(ctx context.Context, f DropFacts) (DropDecision, error) {
	if err := ctx.Err(); err != nil {
		return DropDecision{}, err
	}
	if err := f.Validate(); err != nil {
		return DropDecision{}, err
	}
	odds := p.odds()
	if err := odds.Validate(); err != nil {
		return DropDecision{}, fmt.Errorf("plinko: default decider: %w", err)
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.rand()
	tier := drawTier(odds, r.Float64())
	d := DropDecision{Tier: tier, PrizeIndex: -1}
	switch n := f.UnownedOf(tier); {
	case !tier.IsChest():
		d.Tickets = tier.Tickets()
	case n == 0:
		d.Exhausted = true
		d.Tickets = tier.Tickets()
	default:
		d.PrizeIndex = r.IntN(n)
	}
	return d, nil
}

// rand returns the generator, creating it on first use. p.mu must be held.
func (p *DefaultDecider) rand() *mrand.Rand {
	if p.rnd == nil {
		src := p.Source
		if src == nil {
			src = cryptoSource{}
		}
		p.rnd = mrand.New(src)
	}
	return p.rnd
}

// drawTier maps u in [0, 1) to a tier through the cumulative odds. Rounding
// can leave the sum a hair under 1; u beyond it falls to the last tier with
// non-zero odds.
func drawTier(odds Odds, u float64) Tier {
	last := TierTickets30
	cum := 0.0
	for i, p := range odds {
		if p == 0 {
			continue
		}
		last = Tier(i + 1)
		cum += p
		if u < cum {
			return last
		}
	}
	return last
}

// cryptoSource is a math/rand/v2 Source reading crypto/rand.
type cryptoSource struct{}

func (cryptoSource) Uint64() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return binary.LittleEndian.Uint64(b[:])
}
