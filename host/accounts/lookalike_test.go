package accounts

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/srp"
)

// TestCreateRefusesLookalikes: the second red team's look-alike logins
// (issue 22, item 12) are refused next to the accounts they imitate, each
// with a sentence for the player or operator; ordinary logins, accented
// ones of real people included, are created.
func TestCreateRefusesLookalikes(t *testing.T) {
	sys := actorstest.New(t)
	s := &Service{Group: srp.DefaultGroup(), Sys: sys}
	ctx := context.Background()
	for _, l := range []string{"demo", "friend", "alice1"} {
		if _, err := s.Create(ctx, Create{Login: l, Password: "pw"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		login string
		want  error
	}{
		{"demօ", login.ErrLoginMixedScripts}, // Armenian o
		{"Ꭰemo", login.ErrLoginMixedScripts}, // Cherokee
		{"demo١", login.ErrLoginMixedScripts},
		{"ɑlice1", login.ErrLoginLookalike},
		{"frɩend", login.ErrLoginLookalike},
		{"ᴅᴇᴍᴏ", login.ErrLoginLookalike},
		{"đemo", login.ErrLoginLookalike},
		{"ḍemo", login.ErrLoginLookalike},
		{"Demo", login.ErrLoginLookalike},
		{"de\u200bmo", login.ErrInvisible},
		{"demo\u200d", login.ErrInvisible},
		{"\u202edemo", login.ErrInvisible},
		{"\u200fdemo", login.ErrInvisible},
		{"demo\u3164", login.ErrInvisible}, // Hangul filler: a letter that shows nothing
	} {
		_, err := s.Create(ctx, Create{Login: tc.login, Password: "pw"})
		if !errors.Is(err, tc.want) {
			t.Errorf("Create(%+q) = %v, want %v", tc.login, err, tc.want)
			continue
		}
		msg := RuleMessage(err)
		if msg == "" || strings.Contains(msg, "login:") || strings.Contains(msg, "accounts:") {
			t.Errorf("Create(%+q): message %q", tc.login, msg)
		}
	}
	for _, l := range []string{"josé", "Zoë", "alice2", "friends", "Демо", "山田"} {
		if _, err := s.Create(ctx, Create{Login: l, Password: "pw"}); err != nil {
			t.Errorf("Create(%q) = %v, want an account", l, err)
		}
	}
	// josé exists now: jose looks the same.
	if _, err := s.Create(ctx, Create{Login: "jose", Password: "pw"}); !errors.Is(err, login.ErrLoginLookalike) {
		t.Errorf("jose next to josé: %v", err)
	}
}
