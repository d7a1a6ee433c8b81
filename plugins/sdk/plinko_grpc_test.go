package sdk

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

func TestPlinkoOverGRPC(t *testing.T) {
	facts := DropFacts{AccountID: 42, Currency: CurrencyGold, Unowned: [4]int{0, 2, 0, 9}}
	tests := []struct {
		name    string
		drop    func(ctx context.Context, f DropFacts) (DropDecision, error)
		want    DropDecision
		wantErr []error
	}{
		{
			name: "prize decision",
			drop: func(_ context.Context, f DropFacts) (DropDecision, error) {
				if f != facts {
					return DropDecision{}, fmt.Errorf("plugin got facts %+v, want %+v", f, facts)
				}
				return DropDecision{Tier: TierGold, PrizeIndex: 1}, nil
			},
			want: DropDecision{Tier: TierGold, PrizeIndex: 1},
		},
		{
			name: "exhausted decision",
			drop: func(context.Context, DropFacts) (DropDecision, error) {
				return DropDecision{Tier: TierDiamond, PrizeIndex: -1, Tickets: 350, Exhausted: true}, nil
			},
			want: DropDecision{Tier: TierDiamond, PrizeIndex: -1, Tickets: 350, Exhausted: true},
		},
		{
			name: "invalid facts",
			drop: func(context.Context, DropFacts) (DropDecision, error) {
				return DropDecision{}, fmt.Errorf("%w: nope", ErrInvalidFacts)
			},
			wantErr: []error{ErrInvalidFacts},
		},
		{
			name: "plugin bug",
			drop: func(context.Context, DropFacts) (DropDecision, error) {
				return DropDecision{}, errors.New("nil map")
			},
			wantErr: []error{ErrPluginFailed},
		},
		{
			name: "plugin too slow",
			drop: func(ctx context.Context, _ DropFacts) (DropDecision, error) {
				<-ctx.Done()
				return DropDecision{}, ctx.Err()
			},
			wantErr: []error{ErrUnavailable, context.DeadlineExceeded},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := TestPlinkoClient(t, &MockPlinko{DropFunc: tt.drop})
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			got, err := client.Drop(ctx, facts)
			for _, w := range tt.wantErr {
				if !errors.Is(err, w) {
					t.Errorf("Drop error = %v, want errors.Is %v", err, w)
				}
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if got != tt.want {
					t.Errorf("Drop = %+v, want %+v", got, tt.want)
				}
			}
		})
	}
}

func TestDefaultPlinkoOverGRPC(t *testing.T) {
	odds := Odds{0.1, 0.1, 0.2, 0.2, 0.2, 0.2}
	client := TestPlinkoClient(t, &DefaultPlinko{Name: "x", Version: "9", Odds: odds, Source: rand.NewPCG(1, 2)})
	ctx := context.Background()

	info, err := client.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (PlinkoInfo{Name: "x", Version: "9", Odds: odds}); info != want {
		t.Fatalf("Info = %+v, want %+v", info, want)
	}

	facts := DropFacts{AccountID: 1, Currency: CurrencyTickets, Unowned: [4]int{1, 0, 3, 0}}
	for range 200 {
		d, err := client.Drop(ctx, facts)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Validate(facts); err != nil {
			t.Fatal(err)
		}
	}

	invalid := []DropFacts{
		{Currency: "silver"},
		{Currency: CurrencyGold, Unowned: [4]int{0, -2, 0, 0}},
	}
	for _, f := range invalid {
		if _, err := client.Drop(ctx, f); !errors.Is(err, ErrInvalidFacts) {
			t.Errorf("Drop(%+v) error = %v, want ErrInvalidFacts", f, err)
		}
	}
}
