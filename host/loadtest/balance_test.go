package loadtest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/operator"
)

// The balance checker on scripted reply sequences (balance.go). A drop
// costs 66 tickets and pays 0, 50 or 500.

var testPayouts = []int64{-66, -66 + 50, -66 + 500}

// followed is an account granted 1000 tickets and 100 gold.
func followed(login string) *Account {
	return &Account{login: login, known: true, startTickets: 1000, startGold: 100, tickets: 1000, gold: 100}
}

// balancesServer answers the operator API's account reads with the
// balances of each login.
func balancesServer(t *testing.T, held map[string][2]int64) *opClient {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := held[r.URL.Query().Get("login")]
		if r.URL.Path != operator.PathAccount || !ok {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(operator.Account{Login: r.URL.Query().Get("login"), Tickets: b[0], Gold: b[1]})
	}))
	t.Cleanup(ts.Close)
	return &opClient{base: ts.URL, http: ts.Client()}
}

// A drop of unknown outcome (Plinko status 11, or its reply lost) that
// did happen, paying 50: the next acknowledged drop's balances differ by
// its effect, which explains them; the account is re-anchored there, and
// the end-of-run check passes and counts it.
func TestUnknownOutcomeExplainedReanchors(t *testing.T) {
	a := followed("lt1")
	a.Spend(66, 0) // an acknowledged drop paying nothing
	if err := a.CheckBalances("drop", 934, 100); err != nil {
		t.Fatal(err)
	}
	a.Unknown(Unknown{Tickets: testPayouts}) // status 11: it happened, paying 50
	if a.BalanceKnown() {
		t.Error("BalanceKnown with an operation of unknown outcome pending")
	}
	a.Spend(66, 0) // the next drop, acknowledged, pays 500
	a.Win(500)
	if err := a.CheckBalances("drop", 934-66+50-66+500, 100); err != nil {
		t.Fatalf("the next reply, explained by the unknown drop: %v", err)
	}
	if a.reanchored != 1 || len(a.pending) != 0 || a.tickets != 934-16+434 || !a.BalanceKnown() {
		t.Errorf("after the reply: reanchored %d, pending %d, tickets %d, known %t; want re-anchored at %d",
			a.reanchored, len(a.pending), a.tickets, a.BalanceKnown(), 934-16+434)
	}
	// One more of unknown outcome, which did not happen: the server's
	// balances at the end are explained by none of it.
	a.Unknown(Unknown{Tickets: testPayouts})
	b := followed("lt2")
	b.Unknown(Unknown{Tickets: []int64{0, 50}, Gold: -20}) // a gold drop that happened, paying 50
	opc := balancesServer(t, map[string][2]int64{"lt1": {a.tickets, 100}, "lt2": {1050, 80}})
	c := consistency(context.Background(), opc, []*Account{a, b})
	if !c.OK() || c.BalancesChecked != 2 || c.BalancesOK != 2 || c.Accounts != 2 || c.Reanchored != 3 {
		t.Errorf("consistency: %s %q; want OK, 2 of 2 accounts checked, 3 re-anchorings", c.Summary(), c.Mismatches)
	}
	if s := c.Summary(); !strings.Contains(s, "2 of 2 accounts checked") {
		t.Errorf("summary %q does not say how many accounts were checked", s)
	}
}

// A reply whose balances no operation of unknown outcome explains fails
// the operation (kind balance) and the run: the account is not left out of
// the end-of-run check, which reports it (the command then exits 1, as for
// any mismatch), even though the server's balances at the end match the
// reply's.
func TestUnexplainedBalanceFailsTheRun(t *testing.T) {
	a := followed("lt1")
	a.Unknown(Unknown{Tickets: testPayouts})
	a.Spend(66, 0)
	err := a.CheckBalances("drop", 1000-66-66+7, 100) // 7: no payout
	if kindOf(err) != "balance" {
		t.Fatalf("an unexplained balance: %v; want a balance failure", err)
	}
	if a.uncertain {
		t.Error("the account that disagreed was left out of the check")
	}
	b := followed("lt2") // no operation of unknown outcome: must match exactly
	b.Spend(66, 0)
	if err := b.CheckTickets("exchange user_tickets", 934); err != nil {
		t.Fatal(err)
	}
	opc := balancesServer(t, map[string][2]int64{"lt1": {1000 - 66 - 66 + 7, 100}, "lt2": {935, 100}})
	c := consistency(context.Background(), opc, []*Account{a, b})
	if c.OK() || c.BalancesChecked != 2 || c.BalancesOK != 0 || len(c.Mismatches) != 2 ||
		!strings.Contains(c.Mismatches[0], "lt1: drop") || !strings.Contains(c.Mismatches[1], "lt2: server has 935") {
		t.Errorf("consistency: %s %q; want both accounts checked and both mismatches", c.Summary(), c.Mismatches)
	}
}

// Past maxPending operations of unknown outcome in a row, an account is
// left out (counted, so that the report says how many accounts were
// checked); a reply that states only the tickets re-anchors only when the
// gold is not in doubt.
func TestUnknownOutcomesLeftOutAndTicketsOnly(t *testing.T) {
	a := followed("lt1")
	for range maxPending + 1 {
		a.Unknown(Unknown{Tickets: testPayouts})
	}
	if !a.uncertain || len(a.pending) != 0 {
		t.Errorf("after %d unknown outcomes: uncertain %t, pending %d; want left out", maxPending+1, a.uncertain, len(a.pending))
	}
	b := followed("lt2")
	b.Unknown(Unknown{Tickets: []int64{-66}})          // a tickets drop paying nothing
	b.Unknown(Unknown{Tickets: []int64{0}, Gold: -20}) // a gold drop paying nothing
	if err := b.CheckTickets("exchange user_tickets", 1000); err != nil || len(b.pending) != 2 {
		t.Errorf("tickets unchanged, gold in doubt: %v, pending %d; want no verdict yet", err, len(b.pending))
	}
	if err := b.CheckTickets("exchange user_tickets", 934); err != nil || len(b.pending) != 2 {
		t.Errorf("tickets -66, gold in doubt: %v, pending %d; want no verdict yet", err, len(b.pending))
	}
	if err := b.CheckBalances("board", 934, 80); err != nil || len(b.pending) != 0 || b.gold != 80 {
		t.Errorf("both stated: %v, pending %d, gold %d; want re-anchored at 934/80", err, len(b.pending), b.gold)
	}
	c := consistency(context.Background(), balancesServer(t, map[string][2]int64{"lt2": {934, 80}}), []*Account{a, b})
	if !c.OK() || c.Accounts != 2 || c.BalancesChecked != 1 || c.Uncertain != 1 || !strings.Contains(c.Summary(), "1 of 2 accounts checked, 50%") {
		t.Errorf("consistency: %s; want 1 of 2 accounts checked, 1 left out", c.Summary())
	}
}

// Counts a cluster converges to (guide votes) are read again, a second
// apart, until they match or the run's bound passed: within the bound a
// late match passes and says how long it took; with no bound (one server)
// the first reading is the verdict.
func TestConvergedWaitsForTheBound(t *testing.T) {
	for _, c := range []struct {
		bound     time.Duration
		wantTries int
		wantOK    bool
	}{{0, 1, false}, {10 * time.Second, 3, true}} {
		tries := 0
		var got Consistency
		e := &Env{converge: c.bound}
		e.Converged(context.Background(), &got, func(c *Consistency) {
			tries++
			votes := c.Area("guides votes", "guides' vote counts")
			votes.Checked++
			if tries == 3 { // the third reading has converged
				votes.OK++
			} else {
				c.Mismatch("guide 1: 41 up 0 down, want 40 up 2 down")
			}
		})
		if tries != c.wantTries || got.OK() != c.wantOK || got.Areas["guides votes"].Checked != 1 || c.wantOK && got.Converged < 2*time.Second {
			t.Errorf("bound %s: %d readings, %s (converged after %s); want %d readings, OK %t", c.bound, tries, got.Summary(), got.Converged, c.wantTries, c.wantOK)
		}
	}
}
