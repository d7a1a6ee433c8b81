package reports

import (
	"context"
	"errors"
	"testing"

	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/storage"
)

// The reportee is found by nickname, whatever the login: exact spelling
// first, then a unique match in another case; a shared nickname is
// refused rather than filed against the wrong account.
func TestLookupPlayerByNickname(t *testing.T) {
	f := newAreaFixture(t)
	acc := &accounts.Service{Group: f.grp, Sys: f.area.d.Sys}
	ids := map[string]storage.AccountID{}
	for _, c := range []accounts.Create{
		{Login: "feeder_login", Nickname: "Feeder"},
		{Login: "Plain"}, // nickname = login
		{Login: "twin1", Nickname: "Twin"},
		{Login: "twin2", Nickname: "Twin"},
		{Login: "case1", Nickname: "MiXed"},
		{Login: "case2", Nickname: "mixed"},
		{Login: "case3", Nickname: "Lone"},
	} {
		c.Password = "pw"
		a, err := acc.Create(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		ids[c.Login] = a.ID
	}
	for _, tc := range []struct {
		name string
		want storage.AccountID // 0: ErrUnknownPlayer
	}{
		{"Feeder", ids["feeder_login"]},
		{"feeder_login", 0}, // the login is not a nickname
		{"Plain", ids["Plain"]},
		{"MiXed", ids["case1"]},
		{"mixed", ids["case2"]},
		{"MIXED", 0}, // two accounts in other cases
		{"LONE", ids["case3"]},
		{"Twin", 0}, // two accounts spell it exactly
		{"Nobody", 0},
	} {
		got, err := f.area.LookupPlayer(context.Background(), tc.name)
		switch {
		case tc.want == 0 && !errors.Is(err, ErrUnknownPlayer):
			t.Errorf("%q: %+v, %v; want ErrUnknownPlayer", tc.name, got, err)
		case tc.want != 0 && (err != nil || got.ID != tc.want):
			t.Errorf("%q: %+v, %v; want account %d", tc.name, got, err, tc.want)
		}
	}
}
