package plinkoapi

import (
	"errors"
	"math"
	"testing"

	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi/internal/pb"
	"github.com/honmaster/masterserver/plugins/sdk"
)

func TestFactsRoundTrip(t *testing.T) {
	tests := []DropFacts{
		{},
		{AccountID: 1, Currency: CurrencyTickets, Unowned: [4]int{0, 0, 0, 0}},
		{AccountID: math.MaxUint32, Currency: CurrencyGold, Unowned: [4]int{3, 17, 56, 400}},
		// Converters keep invalid values; Validate judges them.
		{AccountID: 9, Currency: "bogus", Unowned: [4]int{-1, 0, 1, 2}},
	}
	for _, f := range tests {
		got, err := factsFromProto(factsToProto(f))
		if err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		if got != f {
			t.Errorf("round trip %+v = %+v", f, got)
		}
	}
}

func TestDecisionRoundTrip(t *testing.T) {
	tests := []DropDecision{
		{},
		{Tier: TierTickets60, PrizeIndex: -1, Tickets: 60},
		{Tier: TierDiamond, PrizeIndex: -1, Tickets: 350, Exhausted: true},
		{Tier: TierBronze, PrizeIndex: 41},
		{Tier: 42, PrizeIndex: -7, Tickets: -1}, // kept for Validate to reject
	}
	for _, d := range tests {
		got, err := decisionFromProto(decisionToProto(d))
		if err != nil {
			t.Fatalf("%+v: %v", d, err)
		}
		if got != d {
			t.Errorf("round trip %+v = %+v", d, got)
		}
	}
}

func TestFromProtoRejectsMalformed(t *testing.T) {
	if _, err := factsFromProto(&pb.DropFacts{Currency: "gold", Unowned: []int64{1, 2, 3}}); !errors.Is(err, sdk.ErrInvalidFacts) {
		t.Errorf("3 unowned counts: err = %v, want ErrInvalidFacts", err)
	}
	if _, err := factsFromProto(&pb.DropFacts{Currency: "gold"}); !errors.Is(err, sdk.ErrInvalidFacts) {
		t.Errorf("no unowned counts: err = %v, want ErrInvalidFacts", err)
	}
	if math.MaxInt == math.MaxInt32 {
		if _, err := decisionFromProto(&pb.DropDecision{PrizeIndex: math.MaxInt64}); !errors.Is(err, sdk.ErrInvalidDecision) {
			t.Errorf("overflowing prize index: err = %v, want ErrInvalidDecision", err)
		}
	}
}
