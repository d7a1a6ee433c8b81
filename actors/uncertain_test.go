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
