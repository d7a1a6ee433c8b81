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

// A game server's password check (CheckServerPassword: replay_auth,
// new_session, resubmit_stats) costs an exponentiation as a pre_auth does,
// and a right password spent nothing: a player's own login looped through
// those calls got around logins_per_address. It spends from the same
// budget now. (From a review; failed before.)
func TestServerPasswordSpendsTheLoginRate(t *testing.T) {
	s := newHardService(t, func(set *Settings) {
		set.LoginsAddress = limit.Rate{Burst: 3, Every: time.Hour}
	})
	ctx := context.Background()
	md5 := md5hex("pw")
	for i := range 3 {
		if _, err := s.CheckServerPassword(ctx, "bench", md5, "192.0.2.1"); err != nil {
			t.Fatalf("check %d within the budget: %v", i, err)
		}
	}
	if _, err := s.CheckServerPassword(ctx, "bench", md5, "192.0.2.1"); ReasonOf(err) != ReasonTooManyLogins {
		t.Fatalf("a 4th check from the address: %v, want too many logins", err)
	}
	// pre_auth and the checks share the budget.
	if _, err := s.PreAuth(ctx, "bench", attackA(t), "192.0.2.1", ""); ReasonOf(err) != ReasonTooManyLogins {
		t.Fatalf("a pre_auth after the checks: %v, want too many logins", err)
	}
	if _, err := s.CheckServerPassword(ctx, "bench", md5, "192.0.2.2"); err != nil {
		t.Fatalf("another address: %v", err)
	}
}
