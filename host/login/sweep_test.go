package login

import (
	"context"
	"errors"
	"fmt"
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

// TestSessionIndexPack: packing keeps every account's sessions in order,
// and a list changed afterwards (a login, a logout) never writes into its
// neighbour's part of the packed array.
func TestSessionIndexPack(t *testing.T) {
	x := newSessionIndex(3)
	t0 := time.Now()
	sess := func(id storage.AccountID, n int) *storage.Session {
		return &storage.Session{Cookie: fmt.Sprintf("%032x", int(id)*100+n), AccountID: id,
			Created: t0.Add(time.Duration(n) * time.Second), Expires: t0.Add(time.Hour)}
	}
	want := map[storage.AccountID][]*storage.Session{}
	for id := storage.AccountID(1); id <= 5; id++ {
		for n := range int(id%3) + 1 {
			s := sess(id, n)
			if end := x.add(s, t0); len(end) != 0 {
				t.Fatalf("add ended %d sessions", len(end))
			}
			want[id] = append(want[id], s)
		}
	}
	check := func(when string) {
		t.Helper()
		for id, list := range want {
			got := x.m[id]
			if len(got) != len(list) {
				t.Fatalf("%s: account %d has %d sessions, want %d", when, id, len(got), len(list))
			}
			for i, s := range list {
				if got[i].key != s.Key() {
					t.Errorf("%s: account %d session %d is not the one added", when, id, i)
				}
			}
		}
	}
	x.pack()
	check("packed")
	for id, list := range x.m {
		if cap(list) != len(list) {
			t.Errorf("account %d: a packed list of %d has capacity %d (an append would write into the next list)", id, len(list), cap(list))
		}
	}
	// Account 1 holds two sessions: a third must not overwrite the first
	// session of the list packed after it.
	third := sess(1, 2)
	if end := x.add(third, t0); len(end) != 0 {
		t.Fatalf("add after pack ended %d sessions", len(end))
	}
	want[1] = append(want[1], third)
	x.remove(want[4][0])
	want[4] = want[4][1:]
	check("after a login and a logout")
	// The limit still ends the oldest.
	if end := x.add(sess(1, 3), t0); len(end) != 1 || end[0].Hash != want[1][0].Key() {
		t.Fatalf("a fourth session ended %d, want the oldest", len(end))
	}
}
