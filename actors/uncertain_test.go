package actors

import (
	"context"
	"errors"
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
