package accounts

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/host/srp"
)

// TestCreateChecksNickname: every account Create makes (a main account, a
// sub-account: the console's, the operator API's, account create's and
// the registration's path) is held to the nickname rules the import
// checks, and a refused one creates nothing. The console used to store a
// 200,000-character nickname holding LF, NUL and U+202E.
func TestCreateChecksNickname(t *testing.T) {
	sys := actorstest.New(t)
	s := &Service{Group: srp.DefaultGroup(), Sys: sys}
	ctx := context.Background()
	if _, err := s.Create(ctx, Create{Login: "parent", Password: "pw"}); err != nil {
		t.Fatal(err)
	}
	for name, nick := range map[string]string{
		"long":       strings.Repeat("n", 200_000),
		"65 runes":   strings.Repeat("é", MaxNicknameRunes+1),
		"line feed":  "a\nb",
		"NUL":        "a\x00b",
		"bidi":       "a\u202eb",
		"zero width": "a\u200bb",
		"not UTF-8":  "a\xffb",
		"all three":  strings.Repeat("x", 1000) + "\n\x00\u202e",
	} {
		for _, parent := range []string{"", "parent"} {
			login := "nick" + string(rune('a'+len(parent)%26))
			_, err := s.Create(ctx, Create{Login: login, Password: "pw", Nickname: nick, Parent: parent})
			if !errors.Is(err, ErrBadNickname) {
				t.Errorf("%s (parent %q): err %v, want ErrBadNickname", name, parent, err)
			}
			if RuleMessage(err) == "" || strings.Contains(RuleMessage(err), "accounts:") {
				t.Errorf("%s: no sentence for the refusal: %q", name, RuleMessage(err))
			}
			if _, err := sys.DB().LoginID(login); err == nil {
				t.Errorf("%s (parent %q): the account was created", name, parent)
			}
		}
	}
	// The longest nickname, in any script, passes.
	a, err := s.Create(ctx, Create{Login: "sub", Password: "pw", Nickname: strings.Repeat("é", MaxNicknameRunes), Parent: "parent"})
	if err != nil || a.Nickname != strings.Repeat("é", MaxNicknameRunes) {
		t.Fatalf("a nickname of %d characters: %v", MaxNicknameRunes, err)
	}
}

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
