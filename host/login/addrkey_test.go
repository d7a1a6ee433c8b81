package login

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/srp"
)

// TestAddressLimitsGroupIPv6 (issue 22 item 2): the login's per-address
// limits count an IPv6 client by its /64, so that a host cannot take a
// fresh budget with each of its addresses; the next /64 has its own.
func TestAddressLimitsGroupIPv6(t *testing.T) {
	s := newHardService(t, func(set *Settings) {
		set.PreAuthPerAddress = 2
		set.FailedProofsAddress = limit.Rate{Burst: 3, Every: time.Hour}
	})
	for _, ip := range []string{"2001:db8::1", "2001:db8::2", "2001:db8::ffff:3"} {
		if _, err := try(t, s, "bench", "wrong", ip); ReasonOf(err) != ReasonWrongPassword {
			t.Fatalf("wrong password from %s: %v", ip, err)
		}
	}
	if _, err := try(t, s, "bench", "pw", "2001:db8::4"); ReasonOf(err) != ReasonTooManyFailures {
		t.Errorf("4th address of the /64 after 3 failures: %v, want %v", err, ReasonTooManyFailures)
	}
	if _, err := try(t, s, "bench", "pw", "2001:db8:0:1::1"); err != nil {
		t.Errorf("the next /64: %v", err)
	}

	ctx := context.Background()
	a := func() string { cl, _ := srp.DefaultGroup().NewClient("x", "y", rand.Reader); return cl.AHex() }
	for i, login := range []string{"other", "bench"} {
		if _, err := s.PreAuth(ctx, login, a(), "2001:db8:5::"+string(rune('1'+i)), ""); err != nil {
			t.Fatal(err)
		}
	}
	// A third handshake from the same /64 (capped at 2) drops that /64's
	// own oldest, the first one, not the new one.
	if _, err := s.PreAuth(ctx, "nosuchlogin", a(), "2001:db8:5::9", ""); err != nil {
		t.Fatalf("3rd handshake from a /64 capped at 2: %v", err)
	}
	now := s.now()
	if s.pending.take("other", limit.AddrKey("2001:db8:5::1"), now) != nil {
		t.Error("the /64's oldest handshake survived a third one from the same /64")
	}
	if s.pending.take("bench", limit.AddrKey("2001:db8:5::2"), now) == nil {
		t.Error("the /64's second handshake was dropped, want only the oldest")
	}
}

// TestOneHandshakePerLoginPerPrefix: the addresses of one /64 hold one
// pending handshake per login between them, not one each; otherwise a host
// could start 256 handshakes on a victim's login from its /64 and send their
// proofs at once, past the wrong-password limits that are checked before
// any of them is charged.
func TestOneHandshakePerLoginPerPrefix(t *testing.T) {
	s := newHardService(t, nil)
	ctx := context.Background()
	a := func() string { cl, _ := srp.DefaultGroup().NewClient("x", "y", rand.Reader); return cl.AHex() }
	for i := range 16 {
		if _, err := s.PreAuth(ctx, "bench", a(), fmt.Sprintf("2001:db8:7::%x", i+1), ""); err != nil {
			t.Fatal(err)
		}
	}
	now := s.now()
	held := 0
	for i := range 16 {
		if s.pending.take("bench", limit.AddrKey(fmt.Sprintf("2001:db8:7::%x", i+1)), now) != nil {
			held++
		}
	}
	if held != 1 {
		t.Errorf("16 addresses of one /64 hold %d handshakes for one login, want 1", held)
	}
}
