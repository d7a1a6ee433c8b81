package plinko_test

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/plinko"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// counting is a decider that counts its calls.
type counting struct {
	calls atomic.Int64
	next  sdk.Caller
}

func (c *counting) Decide(ctx context.Context, decision string, facts, state []byte) (sdk.RawResult, error) {
	c.calls.Add(1)
	return c.next.Decide(ctx, decision, facts, state)
}

// stopped is the limits' clock of these tests: it never moves, and their
// rates refill once an hour, so nothing refills while a test runs.
func stopped() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// writeRate sets the account's drop and purchase rate to burst, then one
// an hour (the address's: ten times the burst).
func writeRate(burst int) func(*plinko.Settings) {
	return func(s *plinko.Settings) {
		s.WriteBurst, s.WriteEvery = burst, config.Duration{Duration: time.Hour}
	}
}

// clientFrom is a client of ms whose connections come from the loopback
// address ip ("127.0.0.2"): another client address.
func clientFrom(t *testing.T, ms *mockServer, ip string) *client.Client {
	t.Helper()
	c := client.New(ms.base)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	c.HTTP = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
	t.Cleanup(c.HTTP.CloseIdleConnections)
	return c
}

// balanceOf reads an account's stored tickets and gold.
func balanceOf(t *testing.T, ms *mockServer, id storage.AccountID) (tickets, gold int64) {
	t.Helper()
	acct, err := ms.app.Sys.Snapshot(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return acct.Tickets, acct.Gold
}

// TestDropsPastTheAccountRateAreRefused: past write_burst an account's
// drop is refused with status 13 in the drop's shape, its balances as
// they are, before the plugin is asked or anything is charged; its
// purchases spend the same budget; the read-only board is not limited.
func TestDropsPastTheAccountRateAreRefused(t *testing.T) {
	dec := &counting{next: forced(plinkoapi.TierTickets30)}
	ms := newMockServerWith(t, dec, catalogFile, writeRate(3), stopped)
	id, cookie := player(t, ms.app, ms.c, "eager", 2000, 500)
	tickets := int64(2000)
	for i := range 3 {
		a := post(t, ms.c, plinko.PathDrop, cookie, "currency", "tickets")
		if str(a, "status_code") != "1" {
			t.Fatalf("drop %d within the burst: %v", i+1, a)
		}
		tickets += 30 - 66
	}
	if dec.calls.Load() != 3 {
		t.Fatalf("the plugin decided %d drops, want 3", dec.calls.Load())
	}
	for _, cur := range []string{"tickets", "gold"} {
		a := post(t, ms.c, plinko.PathDrop, cookie, "currency", cur)
		checkShape(t, a, dropShape)
		if str(a, "status_code") != strconv.Itoa(int(plinko.StatusTooManyRequests)) || str(a, "user_tickets") != strconv.FormatInt(tickets, 10) ||
			str(a, "user_gold") != "500" || str(a, "random_tier") != "0" || str(a, "product_id") != "-1" {
			t.Errorf("%s drop past the burst: %v; want status 13 with %d tickets and 500 gold", cur, a, tickets)
		}
	}
	p := post(t, ms.c, plinko.PathPurchase, cookie, "id", "302")
	checkShape(t, p, purchaseShape)
	if str(p, "status_code") != "13" || num(p, "tickets_remaining") != tickets {
		t.Errorf("purchase past the burst: %v; want status 13 with %d tickets", p, tickets)
	}
	if n := dec.calls.Load(); n != 3 {
		t.Errorf("the plugin was asked %d times, want 3: a refused drop must not reach it", n)
	}
	if gotT, gotG := balanceOf(t, ms, id); gotT != tickets || gotG != 500 {
		t.Errorf("stored balances %d tickets, %d gold; want %d, 500: a refused request charged something", gotT, gotG, tickets)
	}
	if b := post(t, ms.c, plinko.PathBoard, cookie); num(b, "status_code") != 1 {
		t.Errorf("the board past the write budget: %v", b)
	}
	if e := post(t, ms.c, plinko.PathExchange, cookie); num(e, "status_code") != 51 {
		t.Errorf("the exchange list past the write budget: %v", e)
	}
	// Another account of the same address has its own budget.
	_, other := player(t, ms.app, ms.c, "patient", 1000, 0)
	if a := post(t, ms.c, plinko.PathDrop, other, "currency", "tickets"); str(a, "status_code") != "1" {
		t.Errorf("another account's first drop: %v", a)
	}
}

// TestDropsPastTheAddressRateAreRefused: the accounts behind one address
// share ten times an account's budget; past it each of them is refused
// with status 13 and its balances, even with budget of its own left, and
// the plugin is not asked; a second address is not affected. A dead
// cookie spends nothing of its address's budget.
func TestDropsPastTheAddressRateAreRefused(t *testing.T) {
	dec := &counting{next: forced(plinkoapi.TierTickets30)}
	ms := newMockServerWith(t, dec, catalogFile, writeRate(2), stopped) // 20 for the address
	for range 5 {
		if a := post(t, ms.c, plinko.PathDrop, "dead-cookie", "currency", "tickets"); str(a, "status_code") != "2" {
			t.Fatalf("a dead cookie's drop: %v", a)
		}
	}
	cookies := make([]string, 11)
	for i := range cookies {
		_, cookies[i] = player(t, ms.app, ms.c, "cafe"+strconv.Itoa(i), 1000, 100)
	}
	for i := range 10 { // 10 accounts, 2 drops each: the address's 20
		for range 2 {
			if a := post(t, ms.c, plinko.PathDrop, cookies[i], "currency", "tickets"); str(a, "status_code") != "1" {
				t.Fatalf("account %d within both budgets: %v", i, a)
			}
		}
	}
	a := post(t, ms.c, plinko.PathDrop, cookies[10], "currency", "tickets")
	checkShape(t, a, dropShape)
	if str(a, "status_code") != "13" || str(a, "user_tickets") != "1000" || str(a, "user_gold") != "100" {
		t.Errorf("the 11th account past the address's budget: %v; want status 13 with 1000 tickets, 100 gold", a)
	}
	if p := post(t, ms.c, plinko.PathPurchase, cookies[10], "id", "302"); str(p, "status_code") != "13" || num(p, "tickets_remaining") != 1000 {
		t.Errorf("a purchase past the address's budget: %v", p)
	}
	if n := dec.calls.Load(); n != 20 {
		t.Errorf("the plugin was asked %d times, want 20", n)
	}

	// The same accounts from a second address: its own budget. The
	// eleventh account spent nothing of its own above.
	other := clientFrom(t, ms, "127.0.0.2")
	for range 2 {
		if a := post(t, other, plinko.PathDrop, cookies[10], "currency", "tickets"); str(a, "status_code") != "1" {
			t.Fatalf("the 11th account from a second address: %v", a)
		}
	}
	if a := post(t, other, plinko.PathDrop, cookies[10], "currency", "tickets"); str(a, "status_code") != "13" {
		t.Errorf("the 11th account past its own burst from the second address: %v", a)
	}
	if a := post(t, ms.c, plinko.PathDrop, cookies[0], "currency", "tickets"); str(a, "status_code") != "13" {
		t.Errorf("the first address after the second's drops: %v", a)
	}
}

// TestAClusterNodeKeepsItsShareOfTheAddressRate: on a node of a cluster of
// three (config.Limits.SharedBy, set by config.ShareLimits), an address
// gets a third of its budget, as the [limits] per-address budgets do: a
// balancer spreads one address's accounts over every node, and each node
// counted the whole budget alone (three times the address's drops in
// all). Each account's own rate is whole: its drops all go to its node.
func TestAClusterNodeKeepsItsShareOfTheAddressRate(t *testing.T) {
	dec := &counting{next: forced(plinkoapi.TierTickets30)}
	ms := newMockServerWith(t, dec, catalogFile, writeRate(2), stopped, 3) // 20 for the address, 6 (20/3) on this node
	cookies := make([]string, 4)
	for i := range cookies {
		_, cookies[i] = player(t, ms.app, ms.c, "node"+strconv.Itoa(i), 1000, 0)
	}
	for i := range 3 {
		for range 2 {
			if a := post(t, ms.c, plinko.PathDrop, cookies[i], "currency", "tickets"); str(a, "status_code") != "1" {
				t.Fatalf("account %d within both budgets: %v", i, a)
			}
		}
	}
	if a := post(t, ms.c, plinko.PathDrop, cookies[3], "currency", "tickets"); str(a, "status_code") != "13" {
		t.Errorf("the fourth account past this node's share of the address's budget: %v; want status 13", a)
	}
}

// TestAccountOverItsRateSparesItsAddress: drops an account's own rate
// refuses give their address's token back, so one account hammering
// leaves the others behind its address (a household, a cafe) their
// share.
func TestAccountOverItsRateSparesItsAddress(t *testing.T) {
	ms := newMockServerWith(t, forced(plinkoapi.TierTickets30), catalogFile, writeRate(1), stopped) // 10 for the address
	_, greedy := player(t, ms.app, ms.c, "greedy", 1000, 0)
	for i := range 30 {
		want := "13"
		if i == 0 {
			want = "1"
		}
		if a := post(t, ms.c, plinko.PathDrop, greedy, "currency", "tickets"); str(a, "status_code") != want {
			t.Fatalf("greedy drop %d: %v, want status %s", i+1, a, want)
		}
	}
	for i := range 9 {
		_, cookie := player(t, ms.app, ms.c, "sib"+strconv.Itoa(i), 1000, 0)
		if a := post(t, ms.c, plinko.PathDrop, cookie, "currency", "tickets"); str(a, "status_code") != "1" {
			t.Errorf("account %d behind the greedy one's address: %v", i, a)
		}
	}
}

// TestWriteRateReload: SetWriteRates (a configuration reload) changes the
// rates at once: a raised burst lets an account refused a moment ago drop
// again, write_burst 0 turns the limits off, and a lowered one holds
// again.
func TestWriteRateReload(t *testing.T) {
	ms := newMockServerWith(t, forced(plinkoapi.TierTickets30), catalogFile, writeRate(1), stopped)
	_, cookie := player(t, ms.app, ms.c, "reloader", 5000, 0)
	drop := func(want string) {
		t.Helper()
		if a := post(t, ms.c, plinko.PathDrop, cookie, "currency", "tickets"); str(a, "status_code") != want {
			t.Fatalf("drop: %v, want status %s", a, want)
		}
	}
	drop("1")
	drop("13")
	set := plinko.SettingsOf(config.Default())
	writeRate(3)(&set)
	ms.area.SetWriteRates(set) // burst 1 -> 3: two more now
	drop("1")
	drop("1")
	drop("13")
	set.WriteBurst = 0 // off
	ms.area.SetWriteRates(set)
	for range 40 {
		drop("1")
	}
	writeRate(1)(&set)
	ms.area.SetWriteRates(set)
	drop("1")
	drop("13")
}
