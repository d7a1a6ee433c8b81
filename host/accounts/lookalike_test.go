package accounts

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

// TestCreateRefusesLookalikes: the second red team's look-alike logins
// (issue 22, item 12) are refused next to the accounts they imitate, each
// with a sentence for the player or operator; ordinary logins, accented
// ones of real people included, are created.
func TestCreateRefusesLookalikes(t *testing.T) {
	sys := actorstest.New(t)
	s := &Service{Group: srp.DefaultGroup(), Sys: sys}
	ctx := context.Background()
	for _, l := range []string{"demo", "friend", "alice1", "clan", "modern", "wolf"} {
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
		{"dan", login.ErrLoginLookalike},   // cl / d (issue 36 item 5)
		{"modem", login.ErrLoginLookalike}, // rn / m
		{"vvolf", login.ErrLoginLookalike}, // vv / w
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

// Accounts created before the store kept look-alike entries (here: by the
// registry without a skeleton, as before) get theirs before the first
// creation, so that a look-alike of them is refused; the index is built
// once. Deleting an account frees its look-alikes; two services (two
// registries, as two cluster nodes have) share the index.
func TestLookalikeIndexBuiltAndShared(t *testing.T) {
	sys := actorstest.New(t)
	ctx := context.Background()
	for _, l := range []string{"olddemo", "oldfriend"} {
		if _, err := sys.CreateAccount(ctx, &actors.NewAccount{Login: l}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sys.DB().LoginSkeletonID(login.Skeleton("olddemo")); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("an old account has an entry before the build: %v", err)
	}
	s := &Service{Group: srp.DefaultGroup(), Sys: sys}
	if _, err := s.Create(ctx, Create{Login: "0LDDEMO", Password: "pw"}); !errors.Is(err, login.ErrLoginLookalike) {
		t.Fatalf("a look-alike of an account older than the index: %v; want ErrLoginLookalike", err)
	}
	if v, err := sys.DB().Meta(skeletonsMarker); err != nil || string(v) != login.SkeletonVersion {
		t.Errorf("build marker %q %v", v, err)
	}
	// A second service over another registry of the same database sees
	// the first one's new login.
	other := actors.New(sys.DB(), actors.Options{})
	t.Cleanup(other.Shutdown)
	s2 := &Service{Group: srp.DefaultGroup(), Sys: other}
	if _, err := s.Create(ctx, Create{Login: "newbie", Password: "pw"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Create(ctx, Create{Login: "NEWBIE", Password: "pw"}); !errors.Is(err, login.ErrLoginLookalike) {
		t.Errorf("NEWBIE through another registry: %v; want ErrLoginLookalike", err)
	}
	// Deleting the account frees the look-alike.
	if _, err := s.Delete(ctx, "olddemo"); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Create(ctx, Create{Login: "0LDDEMO", Password: "pw"}); err != nil {
		t.Errorf("a look-alike of a deleted login: %v; want it created", err)
	}
}

// The registry's own check: a look-alike that passes the early read (it
// was created meanwhile) is refused by the commit, as ErrLoginLookalike.
func TestLookalikeRefusedByCommit(t *testing.T) {
	sys := actorstest.New(t)
	ctx := context.Background()
	if _, err := sys.CreateAccount(ctx, &actors.NewAccount{Login: "demo", LoginSkeleton: login.Skeleton("demo")}); err != nil {
		t.Fatal(err)
	}
	_, err := sys.CreateAccount(ctx, &actors.NewAccount{Login: "DEMO", LoginSkeleton: login.Skeleton("DEMO")})
	if !errors.Is(err, actors.ErrLoginLookalike) {
		t.Fatalf("DEMO next to demo: %v; want ErrLoginLookalike", err)
	}
	if _, err := sys.DB().LoginID("DEMO"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the refused account's login was written: %v", err)
	}
}
