package limit

import (
	"fmt"
	"strconv"
	"time"
)

// Writes is the budget of one kind of small write a player can repeat at
// will and that no budget of its own bounds (limits.toggles_per_account
// and toggles_per_address: a switch to another account of the player, a
// guide marked as a hero's default or a favourite, cloud storage turned on
// or off). Each such write is a synced commit: without a budget, one
// client sending them in a loop costs the disk a flush per request. It
// counts per account, and per client address over all its accounts (an
// IPv6 client by its network, AddrKey), as every limit of the host does:
// attackers own many accounts. A nil *Writes allows everything.
type Writes struct {
	account, address *Keyed
}

// WriteRates are a Writes budget's rates: per account, and per client
// address over all its accounts. Keys bounds the keys each of its two
// limiters remembers (0: the default, SetDefaultMaxKeys). A rate that is
// off (Burst or Every <= 0) allows everything.
type WriteRates struct {
	PerAccount, PerAddress Rate
	Keys                   int
}

// NewWrites returns a budget at rates r; now may be nil (the wall clock).
// A rate that is off allows everything until SetRates turns it on.
func NewWrites(r WriteRates, now func() time.Time) *Writes {
	return &Writes{account: NewAdjustable(r.PerAccount, r.Keys, now), address: NewAdjustable(r.PerAddress, r.Keys, now)}
}

// SetRates changes both rates (a configuration reload), as Keyed.SetRate;
// the bound of keys stays as built. A nil *Writes stays nil: it allows
// everything.
func (w *Writes) SetRates(r WriteRates) {
	if w == nil {
		return
	}
	w.account.SetRate(r.PerAccount)
	w.address.SetRate(r.PerAddress)
}

// WriteRefused is Spend's refusal: which budget, and how long until it
// has a write again. Nothing was spent.
type WriteRefused struct {
	Key  string // "account 12" or "address 192.0.2.7"
	Wait time.Duration
}

func (e *WriteRefused) Error() string {
	return fmt.Sprintf("too many writes of %s: next in %v", e.Key, e.Wait.Round(time.Millisecond))
}

// Spend takes one write of account from the client address addr (as the
// server read it) out of both budgets, or spends nothing and returns a
// *WriteRefused. The address is counted first and given back when the
// account's own budget refuses, so that one account over its budget does
// not spend the budget of the others behind its address (a household, a
// cafe). Callers spend only for a write that changes something: a request
// that finds its record as asked writes nothing and costs nothing.
func (w *Writes) Spend(account uint64, addr string) error {
	if w == nil {
		return nil
	}
	key := AddrKey(addr)
	if ok, wait := w.address.Allow(key); !ok {
		return &WriteRefused{Key: "address " + key, Wait: wait}
	}
	if ok, wait := w.account.Allow(strconv.FormatUint(account, 10)); !ok {
		w.address.Refund(key)
		return &WriteRefused{Key: "account " + strconv.FormatUint(account, 10), Wait: wait}
	}
	return nil
}

// Refund gives back the write a successful Spend of account from addr
// took: the write it was spent for was refused with nothing written (a
// full disk, a rule of the change). A write whose outcome is unknown (it
// may have been stored) keeps it.
func (w *Writes) Refund(account uint64, addr string) {
	if w == nil {
		return
	}
	w.address.Refund(AddrKey(addr))
	w.account.Refund(strconv.FormatUint(account, 10))
}
