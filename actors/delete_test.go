package actors

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/honmaster/masterserver/storage"
)

type openSession struct{ cookie string }

func (c openSession) Apply(tx *Tx) (any, error) {
	return nil, tx.PutSession(&storage.Session{Cookie: c.cookie, AccountID: tx.ID(), SuperID: tx.View().SuperID,
		Expires: time.Now().Add(time.Hour)})
}

// TestDeleteAccount: a deletion runs the hooks before its commit (seeing
// the records) and their after functions once it committed; then the
// account is gone from its actor, storage and the session cache, a main
// account with sub-accounts is refused until they are gone, and the login
// can be created again under a new id.
func TestDeleteAccount(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	main, sub, other := create(t, s, "main", ""), create(t, s, "mainsub", "main"), create(t, s, "other", "")
	for _, id := range []storage.AccountID{main.ID, sub.ID, other.ID} {
		if _, err := s.Apply(ctx, id, mark{"g1", "up"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Apply(ctx, id, addTickets{5}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Apply(ctx, main.ID, openSession{"0123456789abcdef0123456789abcdef"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session("0123456789abcdef0123456789abcdef"); err != nil {
		t.Fatal(err)
	}
	var seen, after []string
	s.OnDelete(func(tx *Tx) (func(), error) {
		v, err := testPerAccount.Get(tx.DB(), tx.ID(), "g1")
		if err != nil {
			return nil, err
		}
		seen = append(seen, tx.View().Login+"="+v)
		login := tx.View().Login
		return func() { after = append(after, login) }, nil
	})

	if _, err := s.DeleteAccount(ctx, main.ID); !errors.Is(err, ErrHasSubAccounts) {
		t.Fatalf("deleting a main account with a sub-account: %v", err)
	}
	if len(after) != 0 {
		t.Fatalf("after functions of a refused deletion ran: %v", after)
	}
	for _, id := range []storage.AccountID{sub.ID, main.ID} {
		d, err := s.DeleteAccount(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if d.Counts["profile"] != 1 || d.Counts["x/test.marks"] != 1 || d.Counts["login"] != 1 {
			t.Errorf("deleted %d: %+v", id, d)
		}
	}
	if len(seen) != 2 || seen[0] != "mainsub=up" || seen[1] != "main=up" || len(after) != 2 || after[0] != "mainsub" || after[1] != "main" {
		t.Errorf("hooks saw %v, after ran for %v", seen, after)
	}
	for _, id := range []storage.AccountID{sub.ID, main.ID} {
		if _, err := s.Account(ctx, id); !errors.Is(err, ErrNoAccount) {
			t.Errorf("account %d after deletion: %v", id, err)
		}
		if _, err := s.Apply(ctx, id, addTickets{1}); !errors.Is(err, ErrNoAccount) {
			t.Errorf("change of account %d after deletion: %v", id, err)
		}
		if _, err := testPerAccount.Get(s.DB(), id, "g1"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("record of %d after deletion: %v", id, err)
		}
		if _, err := s.DeleteAccount(ctx, id); !errors.Is(err, ErrNoAccount) {
			t.Errorf("deleting %d again: %v", id, err)
		}
	}
	if _, err := s.Session("0123456789abcdef0123456789abcdef"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("session after deletion: %v", err)
	}
	if v, err := testPerAccount.Get(s.DB(), other.ID, "g1"); err != nil || v != "up" {
		t.Errorf("another account's record: %q, %v", v, err)
	}
	again := create(t, s, "main", "")
	if again.ID == main.ID {
		t.Errorf("a new account got the deleted one's id %d", again.ID)
	}
}

// TestDeleteHookRefuses: a hook's error refuses the deletion; nothing is
// written.
func TestDeleteHookRefuses(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "a", "")
	s.OnDelete(func(tx *Tx) (func(), error) { return nil, errBroke })
	if _, err := s.DeleteAccount(ctx, a.ID); !errors.Is(err, errBroke) {
		t.Fatalf("err = %v", err)
	}
	if _, err := s.Account(ctx, a.ID); err != nil {
		t.Errorf("account after a refused deletion: %v", err)
	}
	if id, err := s.DB().LoginID("a"); err != nil || id != a.ID {
		t.Errorf("login after a refused deletion: %v %v", id, err)
	}
}

// TestDeleteHookMayNotWrite: a hook that writes through the deletion's Tx
// (here a plugin state, not the account itself) refuses the deletion; the
// account stays whole.
func TestDeleteHookMayNotWrite(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "a", "")
	s.OnDelete(func(tx *Tx) (func(), error) {
		tx.SetPluginState("plinko", []byte("left behind"))
		return nil, nil
	})
	if _, err := s.DeleteAccount(ctx, a.ID); !errors.Is(err, ErrBadEdit) {
		t.Fatalf("err = %v, want ErrBadEdit", err)
	}
	if _, err := s.Account(ctx, a.ID); err != nil {
		t.Errorf("account after a refused deletion: %v", err)
	}
}

// TestADeleteHookPanicAfterTheCommit: a delete hook's function that runs
// after the deletion committed and panics leaves the deletion answered as
// done (it is stored) and the other hooks' functions run. Before, the
// panic turned the reply into ErrPanic, a plain failure, for a deletion
// that was stored, and the functions after it never ran.
func TestADeleteHookPanicAfterTheCommit(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "victim", "")
	ran := false
	s.OnDelete(func(*Tx) (func(), error) { return func() { panic("test: an area's bug after the commit") }, nil })
	s.OnDelete(func(*Tx) (func(), error) { return func() { ran = true }, nil })
	if _, err := s.DeleteAccount(ctx, a.ID); err != nil {
		t.Fatalf("deletion: %v, want it answered as done", err)
	}
	if ok, err := s.DB().AccountExists(a.ID); err != nil || ok {
		t.Fatalf("account still stored: %v %v", ok, err)
	}
	if !ran {
		t.Error("the hook after the panicking one did not run")
	}
	if _, err := s.Snapshot(ctx, a.ID); !errors.Is(err, ErrNoAccount) {
		t.Errorf("the deleted account's actor answers %v, want ErrNoAccount", err)
	}
}
