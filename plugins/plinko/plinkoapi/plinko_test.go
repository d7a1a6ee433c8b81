package plinkoapi

import (
	"errors"
	"math"
	"testing"

	"github.com/honmaster/masterserver/plugins/sdk"
)

func TestTierTable(t *testing.T) {
	tests := []struct {
		tier    Tier
		name    string
		chest   bool
		tickets int
	}{
		{TierDiamond, "diamond", true, 350},
		{TierGold, "gold", true, 225},
		{TierSilver, "silver", true, 100},
		{TierBronze, "bronze", true, 80},
		{TierTickets60, "tickets60", false, 60},
		{TierTickets30, "tickets30", false, 30},
		{0, "tier(0)", false, 0},
		{7, "tier(7)", false, 0},
	}
	for _, tt := range tests {
		if got := tt.tier.String(); got != tt.name {
			t.Errorf("Tier(%d).String() = %q, want %q", int(tt.tier), got, tt.name)
		}
		if got := tt.tier.IsChest(); got != tt.chest {
			t.Errorf("Tier(%d).IsChest() = %v, want %v", int(tt.tier), got, tt.chest)
		}
		if got := tt.tier.Tickets(); got != tt.tickets {
			t.Errorf("Tier(%d).Tickets() = %d, want %d", int(tt.tier), got, tt.tickets)
		}
	}
}

func TestOddsValidate(t *testing.T) {
	tests := []struct {
		name string
		odds Odds
		ok   bool
	}{
		{"default", DefaultOdds, true},
		{"one tier", Odds{0, 0, 0, 0, 0, 1}, true},
		{"tenths", Odds{0.1, 0.1, 0.2, 0.2, 0.2, 0.2}, true},
		{"zero", Odds{}, false},
		{"under one", Odds{0.1, 0.1, 0.1, 0.1, 0.1, 0.1}, false},
		{"negative", Odds{-0.1, 0.1, 0.2, 0.3, 0.3, 0.2}, false},
		{"NaN", Odds{math.NaN(), 0, 0, 0, 0, 1}, false},
		{"above one", Odds{1.5, -0.5, 0, 0, 0, 0}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.odds.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestDropFactsValidate(t *testing.T) {
	tests := []struct {
		name  string
		facts DropFacts
		ok    bool
	}{
		{"tickets", DropFacts{AccountID: 1, Currency: CurrencyTickets, Unowned: [4]int{1, 2, 3, 4}}, true},
		{"gold, all owned", DropFacts{Currency: CurrencyGold}, true},
		{"unknown currency", DropFacts{Currency: "Tickets"}, false},
		{"negative diamond", DropFacts{Currency: CurrencyGold, Unowned: [4]int{-1, 0, 0, 0}}, false},
		{"negative bronze", DropFacts{Currency: CurrencyGold, Unowned: [4]int{0, 0, 0, -3}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.facts.Validate()
			if tt.ok && err != nil {
				t.Fatalf("Validate() = %v, want nil", err)
			}
			if !tt.ok && !errors.Is(err, sdk.ErrInvalidFacts) {
				t.Fatalf("Validate() = %v, want ErrInvalidFacts", err)
			}
		})
	}
}

func TestDropDecisionValidate(t *testing.T) {
	facts := DropFacts{Currency: CurrencyTickets, Unowned: [4]int{0, 3, 1, 0}}
	tests := []struct {
		name string
		d    DropDecision
		ok   bool
	}{
		{"60 tickets", DropDecision{Tier: TierTickets60, PrizeIndex: -1, Tickets: 60}, true},
		{"30 tickets", DropDecision{Tier: TierTickets30, PrizeIndex: -1, Tickets: 30}, true},
		{"ticket tier pays wrong", DropDecision{Tier: TierTickets30, PrizeIndex: -1, Tickets: 60}, false},
		{"ticket tier with prize", DropDecision{Tier: TierTickets60, PrizeIndex: 0, Tickets: 60}, false},
		{"diamond exhausted", DropDecision{Tier: TierDiamond, PrizeIndex: -1, Tickets: 350, Exhausted: true}, true},
		{"diamond exhausted unflagged", DropDecision{Tier: TierDiamond, PrizeIndex: -1, Tickets: 350}, false},
		{"bronze exhausted wrong payout", DropDecision{Tier: TierBronze, PrizeIndex: -1, Tickets: 100, Exhausted: true}, false},
		{"gold prize", DropDecision{Tier: TierGold, PrizeIndex: 2}, true},
		{"gold prize out of range", DropDecision{Tier: TierGold, PrizeIndex: 3}, false},
		{"gold prize negative", DropDecision{Tier: TierGold, PrizeIndex: -1}, false},
		{"gold claims exhausted", DropDecision{Tier: TierGold, PrizeIndex: -1, Tickets: 225, Exhausted: true}, false},
		{"silver prize with tickets", DropDecision{Tier: TierSilver, PrizeIndex: 0, Tickets: 100}, false},
		{"unknown tier", DropDecision{Tier: 9, PrizeIndex: -1}, false},
		{"zero decision", DropDecision{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.d.Validate(facts)
			if tt.ok && err != nil {
				t.Fatalf("Validate() = %v, want nil", err)
			}
			if !tt.ok && !errors.Is(err, sdk.ErrInvalidDecision) {
				t.Fatalf("Validate() = %v, want ErrInvalidDecision", err)
			}
		})
	}
}
