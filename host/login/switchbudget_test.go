package login

import (
	"context"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/limit"
)

// A switch_auth stores a session (a synced commit) and had no budget: one
// client switching in a loop cost a disk flush per request. Switches now
// spend from the account switched to (limits.toggles_per_account) and
// from the client's address over all its accounts (toggles_per_address);
// a refused one stores nothing.
func TestSwitchAuthHasABudget(t *testing.T) {
	clock := newTestClock()
	s := newHardServiceAt(t, func(set *Settings) {
		set.Switches = limit.WriteRates{PerAccount: limit.Rate{Burst: 2, Every: time.Minute}, PerAddress: limit.Rate{Burst: 3, Every: time.Minute}}
	}, clock.Now)
	ctx := context.Background()
	const home, elsewhere = "192.0.2.1", "192.0.2.2"
	login := func(name string) *SessionRecord {
		t.Helper()
		rec, err := try(t, s, name, "pw", home)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	sessions := func(acct string) int {
		t.Helper()
		id, err := s.db.LoginID(acct)
		if err != nil {
			t.Fatal(err)
		}
		list, err := s.db.AccountSessions(id)
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	switchTo := func(rec *SessionRecord, ip string) error {
		t.Helper()
		_, err := s.SwitchAuth(ctx, rec.Nickname, rec.AccountID, rec.Cookie, ip) // nickname = login here
		return err
	}

	bench := login("bench")
	for i := range 2 {
		if err := switchTo(bench, home); err != nil {
			t.Fatalf("switch %d: %v", i, err)
		}
	}
	before := sessions("bench")
	if err := switchTo(bench, home); ReasonOf(err) != ReasonTooManySwitches {
		t.Fatalf("third switch into one account within its budget of 2: %v, want too many switches", err)
	}
	if err := switchTo(bench, elsewhere); ReasonOf(err) != ReasonTooManySwitches {
		t.Fatalf("the same account from another address: %v, want too many switches", err)
	}
	if n := sessions("bench"); n != before {
		t.Errorf("refused switches stored sessions: %d, was %d", n, before)
	}

	// The account's refusals gave the address its switches back: one is
	// left of its 3 for another account behind it.
	other := login("other")
	if err := switchTo(other, home); err != nil {
		t.Fatalf("another account's first switch from the address: %v", err)
	}
	if err := switchTo(other, home); ReasonOf(err) != ReasonTooManySwitches {
		t.Fatalf("the address's fourth switch: %v, want too many switches", err)
	}
	if err := switchTo(other, elsewhere); err != nil {
		t.Fatalf("the same account from another address: %v", err)
	}

	clock.Add(time.Minute)
	if err := switchTo(bench, home); err != nil {
		t.Fatalf("a minute later: %v", err)
	}
	s.SetSwitchRates(limit.WriteRates{})
	for i := range 5 {
		if err := switchTo(bench, home); err != nil {
			t.Fatalf("switch %d with the budgets off: %v", i, err)
		}
	}
	if got := Failure(&Error{Reason: ReasonTooManySwitches}).Auth; got == "" || got == messages[ReasonInternal] {
		t.Errorf("refusal's message %q", got)
	}
}
