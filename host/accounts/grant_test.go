package accounts

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/host/srp"
)

// TestGrantOverflow: a grant past the largest balance is refused as an
// overflow, not as a negative balance (issue 22, item 14: the sum wrapped
// round), and changes nothing.
func TestGrantOverflow(t *testing.T) {
	sys := actorstest.New(t)
	s := &Service{Group: srp.DefaultGroup(), Sys: sys}
	ctx := context.Background()
	a, err := s.Create(ctx, Create{Login: "rich", Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.GrantTo(ctx, "rich", &Grant{Tickets: 200, Gold: 5}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		g    Grant
		want error
	}{
		{Grant{Tickets: math.MaxInt64}, ErrGrantOverflow},
		{Grant{Gold: math.MaxInt64 - 4}, ErrGrantOverflow},
		{Grant{Silver: 1, Gold: math.MaxInt64}, ErrGrantOverflow},
		{Grant{Tickets: -201}, ErrGrantNegative},
		{Grant{Gold: math.MinInt64}, ErrGrantNegative},
	} {
		_, err := s.GrantTo(ctx, "rich", &tc.g)
		if !errors.Is(err, ErrBadGrant) || !errors.Is(err, tc.want) {
			t.Errorf("grant %+v: %v, want %v", tc.g, err, tc.want)
		}
	}
	if got, err := s.GrantTo(ctx, "rich", &Grant{Gold: math.MaxInt64 - 5}); err != nil || got.Gold != math.MaxInt64 {
		t.Errorf("grant up to the largest balance: %+v, %v", got, err)
	}
	after, _ := sys.Account(ctx, a.ID)
	if after.Tickets != 200 || after.Silver != 0 {
		t.Errorf("refused grants changed the account: %+v", after)
	}
}
