package limit

import (
	"errors"
	"testing"
	"time"
)

// TestWrites: one account's budget, then the address's over its accounts;
// an account refused gives the address its write back; another address
// of the same IPv6 /64 shares the budget; a reload turns both off.
func TestWrites(t *testing.T) {
	clock := time.Unix(1000, 0)
	w := NewWrites(WriteRates{PerAccount: Rate{Burst: 2, Every: time.Second}, PerAddress: Rate{Burst: 3, Every: time.Second}}, func() time.Time { return clock })
	spend := func(acct uint64, addr string) error { t.Helper(); return w.Spend(acct, addr) }

	for i := range 2 {
		if err := spend(1, "192.0.2.1"); err != nil {
			t.Fatalf("account 1 write %d: %v", i, err)
		}
	}
	var refused *WriteRefused
	if err := spend(1, "192.0.2.1"); !errors.As(err, &refused) || refused.Key != "account 1" || refused.Wait != time.Second {
		t.Fatalf("account 1's third write: %v; want refused by the account's budget, next in 1s", err)
	}
	// The refusal gave the address its write back: one is left for
	// another account behind it.
	if err := spend(2, "192.0.2.1"); err != nil {
		t.Fatalf("account 2 after account 1's refusal: %v", err)
	}
	if err := spend(3, "192.0.2.1"); !errors.As(err, &refused) || refused.Key != "address 192.0.2.1" {
		t.Fatalf("the address's fourth write: %v; want refused by the address's budget", err)
	}
	if err := spend(3, "192.0.2.2"); err != nil {
		t.Fatalf("another address: %v", err)
	}

	for i := range 3 {
		if err := spend(uint64(10+i), "2001:db8::1"); err != nil {
			t.Fatalf("IPv6 write %d: %v", i, err)
		}
	}
	if err := spend(20, "2001:db8::ffff"); err == nil {
		t.Fatal("another address of the same /64 got a budget of its own")
	}

	clock = clock.Add(time.Second)
	if err := spend(1, "192.0.2.1"); err != nil {
		t.Fatalf("a second later: %v", err)
	}
	// A write refused with nothing written gives its write back, to the
	// account and to the address.
	if err := spend(1, "192.0.2.1"); !errors.As(err, &refused) || refused.Key != "address 192.0.2.1" {
		t.Fatalf("the address past its budget again: %v", err)
	}
	w.Refund(1, "192.0.2.1")
	if err := spend(1, "192.0.2.1"); err != nil {
		t.Fatalf("after a refund: %v", err)
	}

	w.SetRates(WriteRates{})
	for i := range 10 {
		if err := spend(1, "192.0.2.1"); err != nil {
			t.Fatalf("write %d with both budgets off: %v", i, err)
		}
	}
	var none *Writes
	none.SetRates(WriteRates{PerAccount: Rate{Burst: 1, Every: time.Hour}})
	none.Refund(1, "192.0.2.1")
	if err := none.Spend(1, "192.0.2.1"); err != nil {
		t.Fatalf("nil budget: %v", err)
	}
}
