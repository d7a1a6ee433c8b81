package plinko

import (
	"fmt"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// dropFacts are the facts of one drop: counts of unowned prizes per chest,
// never the catalog itself.
func dropFacts(a *storage.Account, v *catalogView, cur sdk.Currency) sdk.DropFacts {
	f := sdk.DropFacts{AccountID: uint32(a.ID), Currency: cur}
	for t := sdk.TierDiamond; t <= sdk.TierBronze; t++ {
		for _, p := range v.chest(t) {
			if !a.Owns(p.Upgrade) {
				f.Unowned[t-1]++
			}
		}
	}
	return f
}

// unowned lists the prizes of chest tier t the account does not own, in
// catalog order: the order PrizeIndex counts in.
func unowned(a *storage.Account, v *catalogView, t sdk.Tier) []Product {
	var out []Product
	for _, p := range v.chest(t) {
		if !a.Owns(p.Upgrade) {
			out = append(out, p)
		}
	}
	return out
}

// balances are an account's Plinko balances, for replies.
type balances struct{ Tickets, Gold, Silver int64 }

func balancesOf(a *storage.Account) balances {
	return balances{Tickets: a.Tickets, Gold: a.Gold, Silver: a.Silver}
}

// fundsError is a refused debit; it carries the balances the reply shows.
type fundsError struct {
	bal        balances
	need, have int64
	what       string
}

func (e *fundsError) Error() string {
	return fmt.Sprintf("%v: %s %d, need %d", ErrInsufficientFunds, e.what, e.have, e.need)
}

func (e *fundsError) Unwrap() error { return ErrInsufficientFunds }

// dropChange pays for one drop and applies a decision, inside the account's
// actor. Debit and prize (or ticket payout) are one commit.
//
// The decision was made on facts read before the actor ran this change; a
// concurrent drop on the same account may have won prizes since. So the
// change resolves the decision against the account as it is now:
//   - the balance must still cover the cost, else nothing is written;
//   - PrizeIndex indexes the unowned prizes of the tier now, in catalog
//     order; when fewer remain than the decider saw it is taken modulo their
//     count (still uniform when the decider's index was);
//   - when none remain, the chest pays its exhausted tickets and the reply
//     says products_exhausted. A prize is never granted twice.
//
// A decision of Exhausted is honoured as is: an account cannot come to
// lack prizes it owned except by an operator's correction.
type dropChange struct {
	view     *catalogView
	currency sdk.Currency
	cost     int64
	decision sdk.DropDecision
}

// dropResult is the reply of a dropChange.
type dropResult struct {
	Tier      sdk.Tier
	Prize     *Product // nil when tickets were paid
	Tickets   int64    // tickets paid (ticket tier or exhausted chest)
	Exhausted bool
	After     balances
}

var _ actors.Change = (*dropChange)(nil)

// Apply implements actors.Change.
func (c *dropChange) Apply(tx *actors.Tx) (any, error) {
	v := tx.View()
	have := v.Tickets
	if c.currency == sdk.CurrencyGold {
		have = v.Gold
	}
	if have < c.cost {
		return nil, &fundsError{bal: balancesOf(v), need: c.cost, have: have, what: string(c.currency)}
	}
	d := c.decision
	res := &dropResult{Tier: d.Tier}
	switch {
	case !d.Tier.Valid():
		return nil, fmt.Errorf("%w: tier %d", sdk.ErrInvalidDecision, int(d.Tier))
	case !d.Tier.IsChest():
		res.Tickets = int64(d.Tier.Tickets())
	case d.Exhausted:
		res.Tickets, res.Exhausted = int64(d.Tier.Tickets()), true
	default:
		left := unowned(v, c.view, d.Tier)
		if len(left) == 0 {
			res.Tickets, res.Exhausted = int64(d.Tier.Tickets()), true
			break
		}
		i := d.PrizeIndex
		if i < 0 {
			return nil, fmt.Errorf("%w: prize index %d", sdk.ErrInvalidDecision, i)
		}
		p := left[i%len(left)]
		res.Prize = &p
	}

	a := tx.Account()
	if c.currency == sdk.CurrencyGold {
		a.Gold -= c.cost
	} else {
		a.Tickets -= c.cost
	}
	a.Tickets += res.Tickets
	if res.Prize != nil {
		a.Upgrades = append(a.Upgrades, storage.Upgrade{ID: res.Prize.Upgrade})
	}
	res.After = balancesOf(a)
	return res, nil
}

// purchaseChange buys one exchange item with tickets: the debit and every
// upgrade it grants are one commit.
type purchaseChange struct {
	item ExchangeItem
}

// purchaseResult is the reply of a purchaseChange.
type purchaseResult struct {
	Granted []string // upgrade ids added
	After   balances
}

// ownedError refuses a purchase of what the account owns; it carries the
// balances the reply shows.
type ownedError struct {
	bal     balances
	product int64
}

func (e *ownedError) Error() string {
	return fmt.Sprintf("%v: product %d", ErrAlreadyOwned, e.product)
}

func (e *ownedError) Unwrap() error { return ErrAlreadyOwned }

var _ actors.Change = (*purchaseChange)(nil)

// upgrades are the upgrade ids an exchange item grants.
func upgrades(item ExchangeItem) []string {
	if item.GrabBag == nil {
		return []string{item.Product.Upgrade}
	}
	out := make([]string, 0, len(item.GrabBag.Products))
	for _, p := range item.GrabBag.Products {
		out = append(out, p.Upgrade)
	}
	return out
}

// Apply implements actors.Change. An item is owned when the account owns
// everything it grants; a grab bag owned in part grants the rest at its
// full cost.
func (c *purchaseChange) Apply(tx *actors.Tx) (any, error) {
	v := tx.View()
	var grant []string
	for _, u := range upgrades(c.item) {
		if !v.Owns(u) {
			grant = append(grant, u)
		}
	}
	if len(grant) == 0 {
		return nil, &ownedError{bal: balancesOf(v), product: c.item.Product.ID}
	}
	if v.Tickets < c.item.Cost {
		return nil, &fundsError{bal: balancesOf(v), need: c.item.Cost, have: v.Tickets, what: "tickets"}
	}
	a := tx.Account()
	a.Tickets -= c.item.Cost
	for _, u := range grant {
		a.Upgrades = append(a.Upgrades, storage.Upgrade{ID: u})
	}
	return &purchaseResult{Granted: grant, After: balancesOf(a)}, nil
}
