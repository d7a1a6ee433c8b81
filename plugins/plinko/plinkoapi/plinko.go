package plinkoapi

import (
	"fmt"
	"math"

	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi/internal/pb"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Area is the plinko area: the one place its name is written.
var Area = sdk.RegisterArea("plinko")

// Drop is the plinko area's one decision: the outcome of a drop. The
// host's drop Change calls it inside the account's actor and applies the
// decision exactly as given, or refuses the drop.
var Drop = sdk.NewDecision(sdk.DecisionDef[DropFacts, DropDecision]{
	Area: Area, Name: "drop", Version: 1,
	Facts:      sdk.ProtoCodec(factsToProto, factsFromProto, func() *pb.DropFacts { return &pb.DropFacts{} }),
	Result:     sdk.ProtoCodec(decisionToProto, decisionFromProto, func() *pb.DropDecision { return &pb.DropDecision{} }),
	CheckFacts: DropFacts.Validate,
	Check:      func(f DropFacts, d DropDecision) error { return d.Validate(f) },
})

// Tier is a plinko award tier as numbered by the game.
type Tier int

// Tiers. 1 to 4 are chests, 5 and 6 pay tickets.
const (
	TierDiamond   Tier = 1
	TierGold      Tier = 2
	TierSilver    Tier = 3
	TierBronze    Tier = 4
	TierTickets60 Tier = 5
	TierTickets30 Tier = 6
)

// NumTiers is the number of tiers; NumChestTiers the number of chest tiers.
const (
	NumTiers      = 6
	NumChestTiers = 4
)

// tierTable is the one table of tier names and ticket payouts. For a chest
// tier, tickets is what the chest pays when the account owns every prize
// in it; for a ticket tier it is what the tier pays.
var tierTable = [NumTiers + 1]struct {
	name    string
	tickets int
}{
	TierDiamond:   {"diamond", 350},
	TierGold:      {"gold", 225},
	TierSilver:    {"silver", 100},
	TierBronze:    {"bronze", 80},
	TierTickets60: {"tickets60", 60},
	TierTickets30: {"tickets30", 30},
}

// Valid reports whether t is one of the six tiers.
func (t Tier) Valid() bool { return t >= TierDiamond && t <= TierTickets30 }

// IsChest reports whether t is a chest tier (1 to 4).
func (t Tier) IsChest() bool { return t >= TierDiamond && t <= TierBronze }

// Tickets returns the tickets t pays: the payout of a ticket tier, or what
// an exhausted chest pays instead of a prize. 0 for an invalid tier.
func (t Tier) Tickets() int {
	if !t.Valid() {
		return 0
	}
	return tierTable[t].tickets
}

func (t Tier) String() string {
	if !t.Valid() {
		return fmt.Sprintf("tier(%d)", int(t))
	}
	return tierTable[t].name
}

// Currency is what a drop is paid with. Its value is the wire value of the
// HTTP form field "currency".
type Currency string

// Currencies.
const (
	CurrencyTickets Currency = "tickets"
	CurrencyGold    Currency = "gold"
)

// Valid reports whether c is a known currency.
func (c Currency) Valid() bool { return c == CurrencyTickets || c == CurrencyGold }

// Odds is the probability of each tier: Odds[0] is tier 1 (Diamond) and
// Odds[5] tier 6 (30 tickets). Valid odds sum to 1.
type Odds [NumTiers]float64

// DefaultOdds are the spec's proposed drop probabilities: Diamond 2%, Gold
// 4%, Silver 20%, Bronze 25%, 60 tickets 15%, 30 tickets 34%.
var DefaultOdds = Odds{0.02, 0.04, 0.20, 0.25, 0.15, 0.34}

// oddsTolerance is how far from 1 the sum of valid odds may be.
const oddsTolerance = 1e-9

// Of returns the probability of tier t (0 for an invalid tier).
func (o Odds) Of(t Tier) float64 {
	if !t.Valid() {
		return 0
	}
	return o[t-1]
}

// Validate checks that every probability is in [0, 1] and that they sum to 1.
func (o Odds) Validate() error {
	sum := 0.0
	for i, p := range o {
		if math.IsNaN(p) || p < 0 || p > 1 {
			return fmt.Errorf("odds of %s = %v, want a probability in [0, 1]", Tier(i+1), p)
		}
		sum += p
	}
	if math.Abs(sum-1) > oddsTolerance {
		return fmt.Errorf("odds sum to %v, want 1", sum)
	}
	return nil
}

// DropFacts is what the host tells a decider about one drop. It carries
// counts only: the catalog of prizes stays in the host.
type DropFacts struct {
	AccountID uint32
	Currency  Currency
	// Unowned[i] is how many prizes of chest tier i+1 the account does not
	// own yet.
	Unowned [NumChestTiers]int
}

// Validate reports malformed facts with an error wrapping ErrInvalidFacts.
func (f DropFacts) Validate() error {
	if !f.Currency.Valid() {
		return fmt.Errorf("%w: unknown currency %q", sdk.ErrInvalidFacts, string(f.Currency))
	}
	for i, n := range f.Unowned {
		if n < 0 {
			return fmt.Errorf("%w: unowned %s prizes = %d", sdk.ErrInvalidFacts, Tier(i+1), n)
		}
	}
	return nil
}

// UnownedOf returns how many prizes of chest tier t the account does not
// own yet (0 for a ticket tier).
func (f DropFacts) UnownedOf(t Tier) int {
	if !t.IsChest() {
		return 0
	}
	return f.Unowned[t-1]
}

// DropDecision is a decider's answer for one drop.
type DropDecision struct {
	Tier Tier
	// PrizeIndex indexes the account's unowned prizes of Tier, in the order
	// the host keeps them; -1 when no prize is won.
	PrizeIndex int
	// Tickets paid: 60 or 30 for the ticket tiers, the chest's exhausted
	// payout (Tier.Tickets) when Exhausted, else 0.
	Tickets int
	// Exhausted: the account owns every prize of the chest tier, so the
	// chest pays tickets instead.
	Exhausted bool
}

// Validate checks that d is a consistent answer to f. The host calls it
// before applying a decision; errors wrap ErrInvalidDecision.
func (d DropDecision) Validate(f DropFacts) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", sdk.ErrInvalidDecision, fmt.Sprintf(format, args...))
	}
	switch {
	case !d.Tier.Valid():
		return bad("unknown tier %d", int(d.Tier))
	case !d.Tier.IsChest():
		if d.PrizeIndex != -1 || d.Exhausted || d.Tickets != d.Tier.Tickets() {
			return bad("%s must pay %d tickets with prize index -1, got %+v", d.Tier, d.Tier.Tickets(), d)
		}
	case f.UnownedOf(d.Tier) == 0:
		if !d.Exhausted || d.PrizeIndex != -1 || d.Tickets != d.Tier.Tickets() {
			return bad("exhausted %s chest must pay %d tickets with prize index -1, got %+v", d.Tier, d.Tier.Tickets(), d)
		}
	default:
		n := f.UnownedOf(d.Tier)
		if d.Exhausted || d.Tickets != 0 || d.PrizeIndex < 0 || d.PrizeIndex >= n {
			return bad("%s chest with %d unowned prizes needs a prize index in [0, %d) and no tickets, got %+v", d.Tier, n, n, d)
		}
	}
	return nil
}
