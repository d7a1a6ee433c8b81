package accounts

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/host/srp"
)

// A registration (its nickname is its login) took an imported player's
// nickname: two accounts then showed as "Maliken", and reports and match
// history, finding two, refused both, so the real player could no longer
// be reported and the newcomer passed for them. (From a review of the
// account lifecycle; failed before.)
func TestARegistrationDoesNotTakeAnotherPlayersNickname(t *testing.T) {
	sys := actorstest.New(t)
	s := &Service{Group: srp.DefaultGroup(), Sys: sys}
	ctx := context.Background()
	res, err := s.Import(ctx, strings.NewReader(`{"login":"acct1001","password":"x","nickname":"Maliken"}`+"\n"), ImportOptions{})
	if err != nil || res.Created != 1 {
		t.Fatal(res, err)
	}
	for _, l := range []string{"Maliken", "maliken"} {
		_, err := s.Create(ctx, Create{Login: l, Password: "pw", Address: "203.0.113.9"})
		if !errors.Is(err, ErrNicknameTaken) || RuleMessage(err) == "" {
			ids, _ := sys.DB().NicknameAccounts(l)
			t.Errorf("registration %q: %v (accounts with that nickname: %v), want the nickname refused", l, err, ids)
		}
	}
	// A nickname given on purpose may be shared (nicknames are not
	// unique), and a login free of any nickname is created.
	if _, err := s.Create(ctx, Create{Login: "other", Password: "pw", Nickname: "Maliken"}); err != nil {
		t.Errorf("an operator's account with a chosen nickname: %v", err)
	}
	if _, err := s.Create(ctx, Create{Login: "Malikon", Password: "pw"}); err != nil {
		t.Errorf("a registration of a free name: %v", err)
	}
}
