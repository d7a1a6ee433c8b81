package login

import (
	"context"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/limit"
)

// pre_auth had no rate of its own: each costs the server a 2048-bit
// modular exponentiation (its srpAuth two more), and the wrong-password
// limits count only failures, so one client sending handshakes in a loop
// over its connections, for a login whose password it knows or for none,
// kept cores busy. A handshake now spends from its address's budget
// (limits.logins_per_address; an IPv6 client's /64), before any work.
func TestPreAuthHasARatePerAddress(t *testing.T) {
	clock := newTestClock()
	s := newHardServiceAt(t, func(set *Settings) {
		set.LoginsAddress = limit.Rate{Burst: 3, Every: time.Minute}
	}, clock.Now)
	ctx := context.Background()
	a := attackA(t)
	pre := func(login, ip string) error {
		t.Helper()
		_, err := s.PreAuth(ctx, login, a, ip, "")
		return err
	}
	for i, login := range []string{"bench", "other", "nobody"} {
		if err := pre(login, "2001:db8::1"); err != nil {
			t.Fatalf("handshake %d within the budget: %v", i, err)
		}
	}
	if err := pre("bench", "2001:db8::2"); ReasonOf(err) != ReasonTooManyLogins {
		t.Fatalf("a 4th handshake from the same /64: %v, want too many logins", err)
	}
	if err := pre("bench", "192.0.2.1"); err != nil {
		t.Fatalf("another address: %v", err)
	}
	// A whole login, right password, from the address whose budget is
	// spent is refused at its pre_auth.
	if _, err := try(t, s, "bench", "pw", "2001:db8::3"); ReasonOf(err) != ReasonTooManyLogins {
		t.Fatalf("a login past the budget: %v, want too many logins", err)
	}
	clock.Add(time.Minute)
	if _, err := try(t, s, "bench", "pw", "2001:db8::3"); err != nil {
		t.Fatalf("a minute later: %v", err)
	}
	s.SetLoginRate(limit.Rate{})
	for i := range 10 {
		if err := pre("bench", "2001:db8::1"); err != nil {
			t.Fatalf("handshake %d with the rate off: %v", i, err)
		}
	}
	if msg := Failure(&Error{Reason: ReasonTooManyLogins}).Auth; msg == messages[ReasonTooManyFailures] || msg == messages[ReasonInternal] {
		t.Errorf("the refusal's message %q", msg)
	}
}
