package plinkoapi

import (
	"fmt"

	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi/internal/pb"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Converters between the plinko contract and its wire form. fromProto
// functions check shape (lengths, ranges) so a malformed message never
// becomes a plain Go value; meaning is checked by Validate methods.

func factsToProto(f DropFacts) *pb.DropFacts {
	unowned := make([]int64, len(f.Unowned))
	for i, n := range f.Unowned {
		unowned[i] = int64(n)
	}
	return &pb.DropFacts{AccountId: f.AccountID, Currency: string(f.Currency), Unowned: unowned}
}

func factsFromProto(m *pb.DropFacts) (DropFacts, error) {
	f := DropFacts{AccountID: m.GetAccountId(), Currency: Currency(m.GetCurrency())}
	if len(m.GetUnowned()) != NumChestTiers {
		return DropFacts{}, fmt.Errorf("%w: %d unowned counts, want %d", sdk.ErrInvalidFacts, len(m.GetUnowned()), NumChestTiers)
	}
	for i, n := range m.GetUnowned() {
		v, err := toInt(n)
		if err != nil {
			return DropFacts{}, fmt.Errorf("%w: unowned %s prizes: %w", sdk.ErrInvalidFacts, Tier(i+1), err)
		}
		f.Unowned[i] = v
	}
	return f, nil
}

func decisionToProto(d DropDecision) *pb.DropDecision {
	return &pb.DropDecision{
		Tier:       pb.Tier(d.Tier),
		PrizeIndex: int64(d.PrizeIndex),
		Tickets:    int64(d.Tickets),
		Exhausted:  d.Exhausted,
	}
}

func decisionFromProto(m *pb.DropDecision) (DropDecision, error) {
	idx, err := toInt(m.GetPrizeIndex())
	if err != nil {
		return DropDecision{}, fmt.Errorf("%w: prize index: %w", sdk.ErrInvalidDecision, err)
	}
	tickets, err := toInt(m.GetTickets())
	if err != nil {
		return DropDecision{}, fmt.Errorf("%w: tickets: %w", sdk.ErrInvalidDecision, err)
	}
	return DropDecision{
		Tier:       Tier(m.GetTier()),
		PrizeIndex: idx,
		Tickets:    tickets,
		Exhausted:  m.GetExhausted(),
	}, nil
}

// toInt converts a wire int64 to int, refusing values int cannot hold.
func toInt(v int64) (int, error) {
	if int64(int(v)) != v {
		return 0, fmt.Errorf("%d overflows int", v)
	}
	return int(v), nil
}
