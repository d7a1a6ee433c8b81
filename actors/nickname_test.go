package actors

import (
	"context"
	"reflect"
	"testing"

	"github.com/honmaster/masterserver/storage"
)

// rename sets the account's nickname, as an operator's change would.
type rename struct{ to string }

func (r rename) Apply(tx *Tx) (any, error) { tx.Account().Nickname = r.to; return nil, nil }

// The nickname index follows the account: written when the registry
// creates it, moved by the account's actor when a change renames it, and
// left alone by changes that do not.
func TestNicknameIndexFollowsTheAccount(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	db := s.DB()
	a, err := s.CreateAccount(ctx, &NewAccount{Login: "SouL", Account: storage.Account{Nickname: "TheSoul"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.CreateAccount(ctx, &NewAccount{Login: "other", Account: storage.Account{Nickname: "Other"}})
	if err != nil {
		t.Fatal(err)
	}
	lookup := func(name string) []storage.AccountID {
		t.Helper()
		ids, err := db.NicknameAccounts(name)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	for _, tc := range []struct {
		name string
		want []storage.AccountID
	}{{"TheSoul", []storage.AccountID{a.ID}}, {"thesoul", []storage.AccountID{a.ID}}, {"SouL", nil}, {"Other", []storage.AccountID{b.ID}}, {"TheSou", nil}} {
		if got := lookup(tc.name); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("after create: %q -> %v, want %v", tc.name, got, tc.want)
		}
	}
	if _, err := s.Apply(ctx, a.ID, addTickets{5}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(ctx, a.ID, rename{"Renamed"}); err != nil {
		t.Fatal(err)
	}
	if got := lookup("TheSoul"); got != nil {
		t.Errorf("old nickname still indexed: %v", got)
	}
	if got := lookup("renamed"); !reflect.DeepEqual(got, []storage.AccountID{a.ID}) {
		t.Errorf("new nickname: %v", got)
	}
	// A second account taking the same nickname: both are found.
	if _, err := s.Apply(ctx, b.ID, rename{"RENAMED"}); err != nil {
		t.Fatal(err)
	}
	if got := lookup("Renamed"); !reflect.DeepEqual(got, []storage.AccountID{a.ID, b.ID}) {
		t.Errorf("shared nickname: %v", got)
	}
}
