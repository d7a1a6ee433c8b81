package login

import (
	"context"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

func TestSweepSessions(t *testing.T) {
	s := newBenchService(t)
	clock := time.Now()
	s.now = func() time.Time { return clock }
	ctx := context.Background()
	login := func() string {
		cl, _ := srp.DefaultGroup().NewClient("bench", "pw", rand.Reader)
		pre, err := s.PreAuth(ctx, "bench", cl.AHex(), "127.0.0.1", "")
		if err != nil {
			t.Fatal(err)
		}
		m1, _ := cl.Proof(pre.Salt, pre.Salt2, pre.B)
		rec, err := s.SRPAuth(ctx, "bench", m1, "127.0.0.1", "")
		if err != nil {
			t.Fatal(err)
		}
		return rec.Cookie
	}
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
