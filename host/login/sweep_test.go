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

// TestSessionLimitAcrossServices: the per-account limit of sessions holds
// whichever login service issued them: a restarted one (no sweep run), and
// two over the same storage at once (as two nodes of a cluster), because
// the account's actor reads its sessions from storage. (When each service
// kept an index of its own sessions, the restarted one knew none until its
// sweep, and two services together let an account hold twice the limit.)
func TestSessionLimitAcrossServices(t *testing.T) {
	s := newBenchService(t)
	s.set.SessionsPerAccount = 3
	clock := time.Now()
	s.now = func() time.Time { return clock }
	login := func(s *Service) string {
		cookie := benchLogin(t, s)
		clock = clock.Add(time.Second)
		return cookie
	}
	first := login(s)
	second := login(s)
	login(s)
	restarted := New(s.group, s.sys, s.set, s.now, nil)
	login(restarted) // the fourth: the oldest ends
	if _, err := restarted.Authenticate(first); err == nil {
		t.Error("the oldest session survived a login past the limit on a restarted service")
	}
	fifth := login(s) // the fifth, on the first service: the second oldest ends
	if _, err := s.Authenticate(second); err == nil {
		t.Error("a session survived a login past the limit issued by another service")
	}
	id := s.sessionAccount(t, fifth)
	if list, err := s.db.AccountSessions(id); err != nil || len(list) != 3 {
		t.Fatalf("%d sessions stored (%v), want the limit, 3", len(list), err)
	}
}

// TestSessionsGauge: LiveSessions follows logins, the limit, logouts and
// the sweep.
func TestSessionsGauge(t *testing.T) {
	s := newBenchService(t)
	s.set.SessionsPerAccount = 2
	clock := time.Now()
	s.now = func() time.Time { return clock }
	ctx := context.Background()
	a := benchLogin(t, s)
	clock = clock.Add(time.Second)
	benchLogin(t, s)
	if n := s.LiveSessions(); n != 2 {
		t.Fatalf("after two logins: %d, want 2", n)
	}
	clock = clock.Add(time.Second)
	c := benchLogin(t, s) // ends a
	if n := s.LiveSessions(); n != 2 {
		t.Fatalf("after a login past the limit: %d, want 2", n)
	}
	if err := s.Logout(ctx, c); err != nil {
		t.Fatal(err)
	}
	if n := s.LiveSessions(); n != 1 {
		t.Fatalf("after a logout: %d, want 1", n)
	}
	if err := s.Logout(ctx, a); err == nil {
		t.Fatal("a logout of an ended session passed")
	}
	restarted := New(s.group, s.sys, s.set, s.now, nil)
	if n, err := restarted.SweepSessions(ctx); err != nil || n != 0 || restarted.LiveSessions() != 1 {
		t.Fatalf("a restarted service's sweep: %d deleted (%v), gauge %d; want 0 and 1", n, err, restarted.LiveSessions())
	}
	clock = clock.Add(2 * time.Hour) // past the bench service's 1 h lifetime
	if n, err := restarted.SweepSessions(ctx); err != nil || n != 1 || restarted.LiveSessions() != 0 {
		t.Fatalf("the sweep of an expired session: %d deleted (%v), gauge %d; want 1 and 0", n, err, restarted.LiveSessions())
	}
}

// sessionAccount is the account of a live session's cookie.
func (s *Service) sessionAccount(t *testing.T, cookie string) storage.AccountID {
	t.Helper()
	sess, err := s.db.Session(cookie)
	if err != nil {
		t.Fatal(err)
	}
	return sess.AccountID
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
