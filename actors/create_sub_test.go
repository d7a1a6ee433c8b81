package actors

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/honmaster/masterserver/storage"
)

// TestSubAccountCreationMeetsItsParentsDeletion: a sub-account was
// created by the registry, outside its parent's writer, so a deletion of
// the parent that had found no sub-account committed after the creation
// and left the sub-account without a parent. Now the creation is a
// change of the parent's actor: it runs after the deletion and finds no
// parent. (The deletion is held between its read of the sub-accounts and
// its commit by a delete hook.)
func TestSubAccountCreationMeetsItsParentsDeletion(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	main := create(t, s, "main", "")
	entered, release := make(chan struct{}), make(chan struct{})
	s.OnDelete(func(tx *Tx) (func(), error) {
		close(entered)
		<-release
		return nil, nil
	})
	deleted := make(chan error, 1)
	go func() {
		_, err := s.DeleteAccount(ctx, main.ID)
		deleted <- err
	}()
	<-entered
	type result struct {
		a   *storage.Account
		err error
	}
	created := make(chan result, 1)
	go func() {
		a, err := s.CreateAccount(ctx, &NewAccount{Login: "mainsub", ParentLogin: "main"})
		created <- result{a, err}
	}()
	// The creation, were it outside the parent's actor, commits now; give
	// it the time to (a bound, not an assertion: the creation must wait).
	var got result
	select {
	case got = <-created:
	case <-time.After(2 * time.Second):
	}
	close(release)
	if err := <-deleted; err != nil {
		t.Fatalf("deletion: %v", err)
	}
	if got.a == nil && got.err == nil {
		got = <-created
	}
	if got.err == nil {
		t.Fatalf("sub-account %d created while its parent was being deleted: parent %d is gone", got.a.ID, main.ID)
	}
	if !errors.Is(got.err, ErrBadParent) {
		t.Fatalf("creation after the parent's deletion: %v, want ErrBadParent", got.err)
	}
	if _, err := s.DB().LoginID("mainsub"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the refused sub-account's login: %v", err)
	}
}

// TestSubAccountCreatedByItsParent: a sub-account's creation still checks
// its parent (missing, itself a sub-account) and its login, and records it
// in its parent's index.
func TestSubAccountCreatedByItsParent(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	main := create(t, s, "main", "")
	sub := create(t, s, "mainsub", "main")
	if sub.SuperID != main.ID {
		t.Fatalf("sub-account's main account %d, want %d", sub.SuperID, main.ID)
	}
	r, err := s.DB().AccountRecords(main.ID)
	if err != nil || len(r.SubAccounts) != 1 || r.SubAccounts[0] != sub.ID {
		t.Fatalf("main's sub-accounts %v, %v", r, err)
	}
	for _, c := range []struct {
		req  NewAccount
		want error
	}{
		{NewAccount{Login: "x", ParentLogin: "nobody"}, ErrBadParent},
		{NewAccount{Login: "y", ParentLogin: "mainsub"}, ErrBadParent},
		{NewAccount{Login: "mainsub", ParentLogin: "main"}, ErrLoginTaken},
	} {
		if _, err := s.CreateAccount(ctx, &c.req); !errors.Is(err, c.want) {
			t.Errorf("%+v: %v, want %v", c.req, err, c.want)
		}
	}
}
