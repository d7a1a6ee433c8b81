package accounts

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/host/failure/detail"
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
		says string // the start of the detail an operator reads
	}{
		{Grant{Tickets: math.MaxInt64}, ErrGrantOverflow, "tickets balance would overflow (it holds 200, the grant adds 9223372036854775807,"},
		{Grant{Gold: math.MaxInt64 - 4}, ErrGrantOverflow, "gold balance would overflow (it holds 5,"},
		{Grant{Silver: 1, Gold: math.MaxInt64}, ErrGrantOverflow, "gold balance would overflow"},
		{Grant{Tickets: -201}, ErrGrantNegative, "tickets balance would go negative (it holds 200, the grant adds -201)"},
		{Grant{Gold: math.MinInt64}, ErrGrantNegative, "gold balance would go negative"},
		{Grant{Upgrades: []string{"nodot"}}, ErrBadGrant, `upgrade "nodot" is not <type>.<name>`},
	} {
		_, err := s.GrantTo(ctx, "rich", &tc.g)
		if !errors.Is(err, ErrBadGrant) || !errors.Is(err, tc.want) {
			t.Errorf("grant %+v: %v, want %v", tc.g, err, tc.want)
		}
		if says, _ := detail.Of(err, ErrBadGrant); !strings.HasPrefix(says, tc.says) {
			t.Errorf("grant %+v: detail %q, want it to start %q", tc.g, says, tc.says)
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
