package accounts

import (
	"context"
	"errors"
	"fmt"
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
		{Grant{Upgrades: []string{"nodot"}}, ErrBadUpgrade, `upgrade "nodot" is refused: an upgrade id is <type>.<name>`},
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

// TestGrantUpgradeBytes: an upgrade id that is not UTF-8, or holds a
// control or invisible character, is refused with the rule's sentence and
// changes nothing; such an id would reach my_upgrades of every login.
func TestGrantUpgradeBytes(t *testing.T) {
	sys := actorstest.New(t)
	s := &Service{Group: srp.DefaultGroup(), Sys: sys}
	ctx := context.Background()
	a, err := s.Create(ctx, Create{Login: "who", Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"aa.Hero\xff", "aa.Hero\nX", "aa.Hero\x00", "aa.Hero\u202eX", "aa.Hero\u200bX", "aa.Hero\x7f", "aa.Hero\u0085"} {
		_, err := s.GrantTo(ctx, "who", &Grant{Upgrades: []string{u}})
		if !errors.Is(err, ErrBadGrant) || !errors.Is(err, ErrBadUpgrade) {
			t.Errorf("grant of upgrade %q: err = %v, want ErrBadGrant of ErrBadUpgrade", u, err)
			continue
		}
		says, _ := detail.Of(err, ErrBadGrant)
		if want := fmt.Sprintf("upgrade %q is refused: %v", u, ErrBadUpgrade); says != want {
			t.Errorf("grant of upgrade %q: detail %q, want %q", u, says, want)
		}
	}
	// Visible UTF-8 beyond ASCII is an id like any other.
	got, err := s.GrantTo(ctx, "who", &Grant{Upgrades: []string{"aa.Héros_Ж"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Upgrades) != 1 || got.Upgrades[0].ID != "aa.Héros_Ж" {
		t.Errorf("upgrades %+v, want only aa.Héros_Ж", got.Upgrades)
	}
	if after, _ := sys.Account(ctx, a.ID); len(after.Upgrades) != 1 {
		t.Errorf("refused grants added upgrades: %+v", after.Upgrades)
	}
}
