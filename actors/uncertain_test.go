package actors

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/honmaster/masterserver/storage"
)

// TestUncertainCommitReloads: after a commit whose outcome is unknown (here:
// it did commit, but its answer was lost, as when the connection to
// PostgreSQL drops during COMMIT), the actor must not go on from the state
// it held before: the next change would write only the records that differ
// from that stale state and so undo the change that did commit. It reloads
// the account from storage instead.
func TestUncertainCommitReloads(t *testing.T) {
	db, loseAnswer := openLosingAnswers(t)
	s := New(db, Options{})
	t.Cleanup(func() { s.Shutdown(); db.Close() })
	ctx := context.Background()
	a := create(t, s, "P", "")

	loseAnswer.Store(true)
	if _, err := s.Apply(ctx, a.ID, addTickets{5}); !errors.Is(err, storage.ErrCommitUncertain) {
		t.Fatalf("change whose answer was lost: %v, want ErrCommitUncertain", err)
	}
	got, err := s.Apply(ctx, a.ID, addTickets{1})
	if err != nil {
		t.Fatal(err)
	}
	if got != int64(6) {
		t.Errorf("after 5 tickets committed (answer lost) and 1 more: the change saw %v tickets, want 6", got)
	}
	stored, err := db.Account(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Tickets != 6 {
		t.Errorf("stored tickets %d, want 6 (the uncertain change was undone)", stored.Tickets)
	}
	if snap, err := s.Snapshot(ctx, a.ID); err != nil {
		t.Errorf("snapshot: %v", err)
	} else if snap.Tickets != 6 {
		t.Errorf("snapshot: %d tickets, want 6", snap.Tickets)
	}
}

// openLosingAnswers opens a database in memory whose next commit, once
// the flag is set, commits but answers an error, as when the connection to
// PostgreSQL drops during COMMIT (the flag clears itself).
func openLosingAnswers(t *testing.T) (*storage.DB, *atomic.Bool) {
	t.Helper()
	lose := new(atomic.Bool)
	db, err := storage.Open("", &storage.Options{InMemory: true, Knobs: &storage.TestingKnobs{
		CommitResult: func(err error) error {
			if err == nil && lose.Swap(false) {
				return errors.New("test: connection lost during COMMIT")
			}
			return err
		}}})
	if err != nil {
		t.Fatal(err)
	}
	return db, lose
}

// afterTickets adds tickets and records what its AfterCommit function
// was told; a panic in the function must not change the reply.
type afterTickets struct {
	n      int64
	seen   *[]bool
	panics bool
}

func (c afterTickets) Apply(tx *Tx) (any, error) {
	tx.AfterCommit(func(stored bool) {
		*c.seen = append(*c.seen, stored)
		if c.panics {
			panic("test: after-commit function")
		}
	})
	return addTickets{c.n}.Apply(tx)
}

// TestAfterCommit: a change's AfterCommit function runs in the actor with
// true after its batch is stored, with false after a commit of unknown
// outcome, and not at all when the change errs; a panic in it leaves the
// change's reply as it was.
func TestAfterCommit(t *testing.T) {
	db, loseAnswer := openLosingAnswers(t)
	s := New(db, Options{})
	t.Cleanup(func() { s.Shutdown(); db.Close() })
	ctx := context.Background()
	a := create(t, s, "P", "")
	var seen []bool
	if got, err := s.Apply(ctx, a.ID, afterTickets{n: 2, seen: &seen}); err != nil || got != int64(2) {
		t.Fatalf("stored change: %v %v", got, err)
	}
	loseAnswer.Store(true)
	if _, err := s.Apply(ctx, a.ID, afterTickets{n: 1, seen: &seen}); !errors.Is(err, storage.ErrCommitUncertain) {
		t.Fatalf("change whose answer was lost: %v, want ErrCommitUncertain", err)
	}
	if _, err := s.Apply(ctx, a.ID, afterTickets{n: -100, seen: &seen}); !errors.Is(err, errBroke) {
		t.Fatalf("refused change: %v", err)
	}
	if got, err := s.Apply(ctx, a.ID, afterTickets{n: 1, seen: &seen, panics: true}); err != nil || got != int64(4) {
		t.Fatalf("change whose after-commit function panicked: %v %v, want 4 and no error", got, err)
	}
	if want := []bool{true, false, true}; !slices.Equal(seen, want) {
		t.Errorf("after-commit calls %v, want %v", seen, want)
	}
}

// TestAnUncertainDeletionThatLandedRunsItsHooks: a deletion whose commit
// landed but whose answer was lost finishes as one that committed: its
// hooks' after functions run (the guides' vote counts drop the deleted
// account's votes). Before, only a deletion answered as stored ran them,
// so the votes stayed counted until restart.
func TestAnUncertainDeletionThatLandedRunsItsHooks(t *testing.T) {
	db, loseAnswer := openLosingAnswers(t)
	s := New(db, Options{})
	t.Cleanup(func() { s.Shutdown(); db.Close() })
	ctx := context.Background()
	a := create(t, s, "P", "")
	ran := false
	s.OnDelete(func(*Tx) (func(), error) { return func() { ran = true }, nil })
	loseAnswer.Store(true)
	if _, err := s.DeleteAccount(ctx, a.ID); !errors.Is(err, storage.ErrCommitUncertain) {
		t.Fatalf("deletion whose answer was lost: %v, want ErrCommitUncertain", err)
	}
	if ok, err := db.AccountExists(a.ID); err != nil || ok {
		t.Fatalf("the deletion did not land (%v %v)", ok, err)
	}
	if !ran {
		t.Error("the deletion is stored, and its hook's after function never ran")
	}
	if _, err := s.Snapshot(ctx, a.ID); !errors.Is(err, ErrNoAccount) {
		t.Errorf("the deleted account's actor answers %v, want ErrNoAccount", err)
	}
}

// TestAPanicInsideTheCommit: a panic inside the commit after the engine
// stored the batch (a commit observer's) is an outcome unknown: the
// actor reloads, so the next change builds on the stored write. Before,
// it was answered as a plain failure and the actor kept its state from
// before the write, so the next change undid it.
func TestAPanicInsideTheCommit(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "P", "")
	var arm atomic.Bool
	s.DB().SetCommitObserver(func(storage.CommitInfo) {
		if arm.Swap(false) {
			panic("test: the commit observer")
		}
	})
	arm.Store(true)
	if _, err := s.Apply(ctx, a.ID, addTickets{2}); !errors.Is(err, storage.ErrCommitUncertain) {
		t.Errorf("a change whose commit panicked after the write: %v, want ErrCommitUncertain", err)
	}
	if _, err := s.Apply(ctx, a.ID, addTickets{1}); err != nil {
		t.Fatal(err)
	}
	if stored, err := s.DB().Account(a.ID); err != nil || stored.Tickets != 3 {
		t.Errorf("after +2 (stored) and +1: %d tickets stored (%v), want 3", stored.Tickets, err)
	}
}
