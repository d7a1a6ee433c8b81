package login

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/srp"
)

// TestHandedOverHandshakeFinishesOnceElsewhere: a handshake released by the
// node that served pre_auth (a cluster node stopping) and adopted by
// another finishes there with the player's proof, once, and no longer
// where it started; it keeps what was left of its lifetime; a newer
// handshake of the same login and address is not replaced by it.
func TestHandedOverHandshakeFinishesOnceElsewhere(t *testing.T) {
	const player = "198.51.100.7"
	clock := newTestClock()
	a := newHardServiceAt(t, nil, clock.Now)
	b := New(a.group, a.sys, a.set, clock.Now, nil) // another node of the same database
	ctx := context.Background()
	preAuth := func(s *Service) string {
		t.Helper()
		cl, err := srp.DefaultGroup().NewClient("bench", "pw", rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		pre, err := s.PreAuth(ctx, "bench", cl.AHex(), player, "")
		if err != nil {
			t.Fatal(err)
		}
		m1, err := cl.Proof(pre.Salt, pre.Salt2, pre.B)
		if err != nil {
			t.Fatal(err)
		}
		return m1
	}
	handOver := func() {
		t.Helper()
		hs := a.ReleasePending()
		if len(hs) != 1 {
			t.Fatalf("released %d handshakes, want 1", len(hs))
		}
		if err := b.AdoptPending(hs[0]); err != nil {
			t.Fatal(err)
		}
	}

	m1 := preAuth(a)
	clock.Add(20 * time.Second)
	handOver()
	if _, err := a.SRPAuth(ctx, "bench", m1, player, ""); ReasonOf(err) != ReasonNoPendingLogin {
		t.Fatalf("the proof where pre_auth ran, after the hand-over: %v, want %q", err, ReasonNoPendingLogin.Message())
	}
	if _, err := b.SRPAuth(ctx, "bench", m1, player, ""); err != nil {
		t.Fatalf("the proof on the node the handshake was handed to: %v, want success", err)
	}
	if _, err := b.SRPAuth(ctx, "bench", m1, player, ""); ReasonOf(err) != ReasonNoPendingLogin {
		t.Fatalf("the same proof again: %v, want %q", err, ReasonNoPendingLogin.Message())
	}

	// It expires when it would have where it started (a minute after pre_auth).
	m1 = preAuth(a)
	clock.Add(20 * time.Second)
	handOver()
	clock.Add(40 * time.Second)
	if _, err := b.SRPAuth(ctx, "bench", m1, player, ""); ReasonOf(err) != ReasonNoPendingLogin {
		t.Fatalf("the proof past the handshake's lifetime: %v, want %q", err, ReasonNoPendingLogin.Message())
	}

	// A pre_auth the client sent again to the new node meanwhile is newer.
	_ = preAuth(a)
	newer := preAuth(b)
	handOver()
	if _, err := b.SRPAuth(ctx, "bench", newer, player, ""); err != nil {
		t.Fatalf("the newer handshake's proof: %v, want success", err)
	}
}
