package login

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// homeStub is a cluster placement whose home test says.
type homeStub struct{ home atomic.Bool }

func (h *homeStub) Node() string                { return "n2" }
func (h *homeStub) Home(storage.AccountID) bool { return h.home.Load() }
func (h *homeStub) Changed(storage.AccountID)   {}

// TestSweepSessionsOnlyAtHome: in cluster mode every node ran the hourly
// sweep over every account, each deletion a transient activation that
// fenced the account's home. Now a node sweeps the accounts it is the
// home of, and leaves the others to their homes.
func TestSweepSessionsOnlyAtHome(t *testing.T) {
	s := newBenchService(t)
	clock := time.Now()
	s.now = func() time.Time { return clock }
	cookie := benchLogin(t, s)
	clock = clock.Add(2 * time.Hour) // past the bench service's 1 h lifetime

	place := &homeStub{}
	sys := actors.New(s.db, actors.Options{Placement: place, AskTimeout: 10 * time.Second})
	t.Cleanup(sys.Shutdown)
	node := New(s.group, sys, s.set, s.now, nil)
	ctx := context.Background()
	if n, err := node.SweepSessions(ctx); err != nil || n != 0 {
		t.Fatalf("a node that is not the account's home swept %d (%v), want 0", n, err)
	}
	if _, err := s.db.Session(cookie); err != nil {
		t.Fatalf("the session was deleted by a node that is not its account's home: %v", err)
	}
	place.home.Store(true)
	if n, err := node.SweepSessions(ctx); err != nil || n != 1 {
		t.Fatalf("the home's sweep: %d (%v), want 1", n, err)
	}
	if _, err := s.db.Session(cookie); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the expired session is still stored after its home's sweep: %v", err)
	}
}
