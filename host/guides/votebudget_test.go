package guides

import (
	"context"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/wire"
)

// Accounts of one address share its vote budgets (issue 22, item 6: 20
// accounts of one address moved a guide's rating from 0.75 to 0.96): one
// vote per guide and two in all here, refused as vote_refused with the
// counts unchanged; another address has its own budget, and both refill.
func TestVoteBudgetPerAddress(t *testing.T) {
	h := newHarness(t, testGuides()...)
	clock := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	h.area.votes = VoteBudget{PerAddress: limit.Rate{Burst: 2, Every: time.Hour},
		PerGuideAddress: limit.Rate{Burst: 1, Every: time.Hour}}.limiters(func() time.Time { return clock })
	vote := func(ip, cookie, account, gid string) *wire.Array {
		t.Helper()
		r := formRequest("f", string(FuncVote), "account", account, "cookie", cookie, "hosttime", "1620573527", "v", "1", "gid", gid)
		r.RemoteIP = ip
		v, err := wire.Unmarshal(h.fns[FuncVote](context.Background(), r))
		if err != nil {
			t.Fatal(err)
		}
		return v.(*wire.Array)
	}
	const home, other = "192.0.2.7", "198.51.100.9"
	accepted := func(what string, a *wire.Array) {
		t.Helper()
		if get(a, "success") != int64(1) {
			t.Fatalf("%s: %v", what, a)
		}
	}
	accepted("A on guide 1", vote(home, cookieA, "7", "1"))
	wantFail(t, vote(home, cookieB, "8", "1"), "vote_refused") // the guide's budget of the address
	if c := h.be.tally.Derived(1); c != (Counts{Up: 1}) {
		t.Fatalf("guide 1 counts %+v after a refused vote", c)
	}
	accepted("B on guide 4", vote(home, cookieB, "8", "4"))
	wantFail(t, vote(home, cookieA, "7", "3"), "vote_refused") // the address's budget
	accepted("B from another address", vote(other, cookieB, "8", "1"))
	clock = clock.Add(time.Hour)
	accepted("A on guide 3 after the refill", vote(home, cookieA, "7", "3"))
}

// A repeated identical vote changes nothing and spends nothing of the
// address's budgets (issue 36 item 5: three clicks of one vote used the
// per-guide budget up for hours); a changed vote spends as before.
func TestRepeatedVoteIsFree(t *testing.T) {
	h := newHarness(t, testGuides()...)
	clock := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	h.area.votes = VoteBudget{PerAddress: limit.Rate{Burst: 2, Every: time.Hour},
		PerGuideAddress: limit.Rate{Burst: 2, Every: time.Hour}}.limiters(func() time.Time { return clock })
	vote := func(v string) *wire.Array {
		t.Helper()
		r := formRequest("f", string(FuncVote), "account", "7", "cookie", cookieA, "hosttime", "1620573527", "v", v, "gid", "1")
		r.RemoteIP = "192.0.2.7"
		a, err := wire.Unmarshal(h.fns[FuncVote](context.Background(), r))
		if err != nil {
			t.Fatal(err)
		}
		return a.(*wire.Array)
	}
	for i := range 5 {
		if a := vote("1"); get(a, "success") != int64(1) {
			t.Fatalf("the same vote, click %d: %v", i+1, a)
		}
	}
	if a := vote("0"); get(a, "success") != int64(1) {
		t.Fatalf("a changed vote after repeats: %v", a)
	}
	wantFail(t, vote("1"), "vote_refused") // the third change: past the burst of 2
	if c := h.be.tally.Derived(1); c != (Counts{Down: 1}) {
		t.Errorf("guide 1 counts %+v, want one down vote", c)
	}
}

// TestAVoteRefusedWithNothingWrittenGivesItsSpendBack: a vote refused
// with nothing written after its spend gives it back when the refusal is
// the server's (a full disk: the player's retry must not find the budget
// used up), and keeps it when the plugin was asked and did not answer
// (the budget bounds the calls an address sends a slow plugin). (The
// refund came with 5890fd7; the second review showed it refunded the
// plugin's silence too.)
func TestAVoteRefusedWithNothingWrittenGivesItsSpendBack(t *testing.T) {
	for _, tc := range []struct {
		err    error
		refund bool
	}{
		{Fail(ReasonStorageFull, nil), true},
		{Fail(ReasonUnavailable, nil), false},
	} {
		h := newHarness(t, testGuides()...)
		clock := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
		h.area.votes = VoteBudget{PerAddress: limit.Rate{Burst: 5, Every: time.Hour},
			PerGuideAddress: limit.Rate{Burst: 1, Every: time.Hour}}.limiters(func() time.Time { return clock })
		h.be.voteErr = tc.err
		wantFail(t, h.call(FuncVote, "v", "1", "gid", "1"), reasonText[ReasonOf(tc.err)])
		h.be.voteErr = nil
		a := h.call(FuncVote, "v", "1", "gid", "1")
		if got := get(a, "success") == int64(1); got != tc.refund {
			t.Errorf("after a vote refused as %s: %v; want accepted %v", reasonText[ReasonOf(tc.err)], a, tc.refund)
		}
	}
}
