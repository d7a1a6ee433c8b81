package login

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/honmaster/masterserver/storage"
)

func TestSweepSessions(t *testing.T) {
	s := newBenchService(t)
	clock := time.Now()
	s.now = func() time.Time { return clock }
	ctx := context.Background()
	login := func() string { return benchLogin(t, s) }
	old := login()
	clock = clock.Add(30 * time.Minute)
	fresh := login()
	clock = clock.Add(45 * time.Minute) // old is 75 min old: past the bench service's 1 h lifetime

	n, err := s.SweepSessions(ctx)
	if err != nil || n != 1 {
		t.Fatalf("SweepSessions = %d, %v; want 1", n, err)
	}
	if _, err := s.db.Session(old); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("expired session still stored: %v", err)
	}
	if _, err := s.Authenticate(fresh); err != nil {
		t.Errorf("live session swept: %v", err)
	}
	if n, _ := s.SweepSessions(ctx); n != 0 {
		t.Errorf("second sweep deleted %d", n)
	}
}

// TestSweepSeedsEverySession: after a restart the index of live sessions
// starts from storage, where sessions have no cookie (only its hash). Every
// stored session of an account must be seeded (it once kept only the first:
// seeded sessions were told apart by their empty cookies), so that the
// per-account limit still ends the oldest one.
func TestSweepSeedsEverySession(t *testing.T) {
	s := newBenchService(t)
	s.set.SessionsPerAccount = 3
	s.sessions = newSessionIndex(3)
	clock := time.Now()
	s.now = func() time.Time { return clock }
	ctx := context.Background()
	login := func(s *Service) string {
		cookie := benchLogin(t, s)
		clock = clock.Add(time.Second)
		return cookie
	}
	first := login(s)
	login(s)
	login(s)
	// A restarted service: same storage, empty index.
	restarted := New(s.group, s.sys, s.set, s.now, nil)
	if n, err := restarted.SweepSessions(ctx); err != nil || n != 0 {
		t.Fatalf("SweepSessions = %d, %v", n, err)
	}
	sess, err := restarted.Authenticate(first)
	if err != nil {
		t.Fatal(err)
	}
	if n := restarted.sessions.count(sess.AccountID); n != 3 {
		t.Fatalf("%d sessions seeded, want 3", n)
	}
	login(restarted) // the fourth: the oldest ends
	if _, err := restarted.Authenticate(first); err == nil {
		t.Error("the oldest session survived a login past the limit")
	}
}

// benchLogin logs the bench account in to s (pre_auth, then srpAuth with
// the client's proof) and returns the new session's cookie.
func benchLogin(t *testing.T, s *Service) string {
	t.Helper()
	rec, err := try(t, s, "bench", "pw", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return rec.Cookie
}
