package accounts

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/host/srp"
)

func TestCheckLogin(t *testing.T) {
	for _, tc := range []struct {
		login string
		ok    bool
	}{
		{"SouL", true}, {"a_b-c9", true}, {"twelve_chars", true}, {"Ünïcode", true},
		{"", false}, {"thirteen_char", false}, {"with space", false}, {"semi;colon", false}, {"pipe|x", false},
	} {
		if err := CheckLogin(tc.login); (err == nil) != tc.ok {
			t.Errorf("CheckLogin(%q) = %v, want ok=%v", tc.login, err, tc.ok)
		}
	}
}

func TestCreateAndGrant(t *testing.T) {
	sys := actorstest.New(t)
	s := &Service{Group: srp.DefaultGroup(), Sys: sys}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		c    Create
		want error
	}{
		{"bad login", Create{Login: "no good", Password: "pw"}, ErrBadLogin},
		{"no password", Create{Login: "nopw"}, ErrBadPassword},
		{"long password", Create{Login: "longpw", Password: strings.Repeat("p", 129)}, ErrBadPassword},
		{"bad email", Create{Login: "mail", Password: "pw", Email: "nope"}, ErrBadEmail},
	} {
		if _, err := s.Create(ctx, tc.c); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	a, err := s.Create(ctx, Create{Login: "Grantee", Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Nickname != "Grantee" || a.Email != "grantee@example.invalid" || len(a.SRP.Verifier) == 0 || len(a.SRP.Salt2) != 22 {
		t.Errorf("defaults: %+v", a)
	}

	got, err := s.GrantTo(ctx, "Grantee", &Grant{Gold: 10, Tickets: 5, Upgrades: []string{"aa.Hero_X.Alt1", "aa.Hero_X.Alt1"}})
	if err != nil || got.Gold != 10 || got.Tickets != 5 || len(got.Upgrades) != 1 {
		t.Fatalf("grant: %+v, %v", got, err)
	}
	for _, g := range []*Grant{
		{Gold: -11},                            // below zero
		{Upgrades: []string{"no-dot"}},         // not <type>.<name>
		{Upgrades: []string{"aa.with space"}},  // unsafe on the wire
		{Tickets: 1, Upgrades: []string{"x."}}, // empty name: nothing applied, tickets included
	} {
		if _, err := s.GrantTo(ctx, "Grantee", g); !errors.Is(err, ErrBadGrant) {
			t.Errorf("grant %+v: err = %v, want ErrBadGrant", g, err)
		}
	}
	after, _ := sys.Account(ctx, a.ID)
	if after.Gold != 10 || after.Tickets != 5 || len(after.Upgrades) != 1 {
		t.Errorf("refused grants changed the account: %+v", after)
	}
}
