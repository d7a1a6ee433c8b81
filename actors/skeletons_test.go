package actors

import (
	"context"
	"errors"
	"testing"

	"github.com/honmaster/masterserver/storage"
)

// TestAStaleSkeletonEntryRefusesNothing: the look-alike index's first
// build reads the logins outside their actors, so an account deleted
// between that read and the build's commit keeps an entry no deletion
// removes. Before, that entry refused the deleted account's own login,
// and every login that looks like it, for good. Such an entry is now no
// holder, and a new account whose login has the skeleton takes it over,
// in a creation alone or among several.
func TestAStaleSkeletonEntryRefusesNothing(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	var old []*storage.Account
	for _, l := range []string{"bob", "eve"} {
		a, err := s.CreateAccount(ctx, &NewAccount{Login: l})
		if err != nil {
			t.Fatal(err)
		}
		old = append(old, a)
	}
	deleted := false
	skel := func(login string) string {
		if !deleted {
			// Both logins are read; the accounts go before the entries
			// are written.
			deleted = true
			for _, a := range old {
				if _, err := s.DeleteAccount(ctx, a.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		return "sk-" + login
	}
	if _, err := s.IndexLoginSkeletons(ctx, "skeletons", "1", skel); err != nil {
		t.Fatal(err)
	}
	for i, sk := range []string{"sk-bob", "sk-eve"} {
		if stale, err := s.DB().StaleLoginSkeleton(sk); err != nil || stale != old[i].ID {
			t.Fatalf("%s: stale entry of %v (%v), want the deleted account %d (the scenario did not happen)", sk, stale, err, old[i].ID)
		}
		if id, err := s.DB().LoginSkeletonID(sk); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("%s: held by %d (%v), want no holder", sk, id, err)
		}
	}
	a, err := s.CreateAccount(ctx, &NewAccount{Login: "bob", LoginSkeleton: "sk-bob"})
	if err != nil {
		t.Fatalf("the deleted account's login registered again: %v", err)
	}
	created, err := s.CreateAccounts(ctx, []*NewAccount{{Login: "eve", LoginSkeleton: "sk-eve"}})
	if err != nil || len(created) != 1 || created[0].Err != nil {
		t.Fatalf("the other deleted login among several: %+v %v", created, err)
	}
	for sk, want := range map[string]storage.AccountID{"sk-bob": a.ID, "sk-eve": created[0].Account.ID} {
		if id, err := s.DB().LoginSkeletonID(sk); err != nil || id != want {
			t.Errorf("%s: held by %d (%v), want the new account %d", sk, id, err, want)
		}
	}
	// The entry is the new account's: a look-alike is refused again, and
	// the new account's deletion removes it.
	if _, err := s.CreateAccount(ctx, &NewAccount{Login: "b0b", LoginSkeleton: "sk-bob"}); !errors.Is(err, ErrLoginLookalike) {
		t.Errorf("a look-alike of the new bob: %v, want ErrLoginLookalike", err)
	}
	if _, err := s.DeleteAccount(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if stale, err := s.DB().StaleLoginSkeleton("sk-bob"); err != nil || stale != 0 {
		t.Errorf("after the new bob's deletion: stale entry %d (%v), want none", stale, err)
	}
}
