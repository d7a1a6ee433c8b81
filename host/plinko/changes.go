package plinko

import (
	"bytes"
	"context"
	"fmt"
	"math"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// dropFacts are the facts of one drop: counts of unowned prizes per chest,
// never the catalog itself.
func dropFacts(a *storage.Account, v *catalogView, cur plinkoapi.Currency) plinkoapi.DropFacts {
	f := plinkoapi.DropFacts{AccountID: uint32(a.ID), Currency: cur}
	for t := plinkoapi.TierDiamond; t <= plinkoapi.TierBronze; t++ {
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
func unowned(a *storage.Account, v *catalogView, t plinkoapi.Tier) []Product {
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

// dropChange is one whole drop, inside the account's actor, on the
// account as it is now: check the balance, gather the facts, ask the
// plugin (bounded by the request's deadline, with the plugin's own state
// for this account), check the decision, then pay and apply it exactly as
// given, storing the plugin's new state, in one commit. A decision that
// fails its check, or any plugin error, refuses the drop: nothing is
// charged and the state is not advanced. A decision is never re-mapped.
//
// Concurrent drops of one account run one after the other in its actor, so
// each sees the prizes and the plugin state the previous one left; drops of
// different accounts reach the plugin together and share its calls (see
// sdk's batcher).
type dropChange struct {
	ctx      context.Context // the request's: bounds the plugin call
	decider  sdk.Caller
	view     *catalogView
	currency plinkoapi.Currency
	cost     int64
}

// dropResult is the reply of a dropChange.
type dropResult struct {
	Tier      plinkoapi.Tier
	Prize     *Product // nil when tickets were paid
	Tickets   int64    // tickets paid (ticket tier or exhausted chest)
	Exhausted bool
	After     balances
}

// refusal is a refused change; it carries the balances the reply shows.
type refusal struct {
	bal balances
	err error
}

func (e *refusal) Error() string { return e.err.Error() }
func (e *refusal) Unwrap() error { return e.err }

var _ actors.ChangeFunc[*dropResult] = (*dropChange)(nil).apply

// apply is the change, run by actors.Apply.
func (c *dropChange) apply(tx *actors.Tx) (*dropResult, error) {
	v := tx.View()
	have := v.Tickets
	if c.currency == plinkoapi.CurrencyGold {
		have = v.Gold
	}
	if have < c.cost {
		return nil, &fundsError{bal: balancesOf(v), need: c.cost, have: have, what: string(c.currency)}
	}
	refuse := func(err error) (*dropResult, error) { return nil, &refusal{bal: balancesOf(v), err: err} }
	area := string(plinkoapi.Drop.Area())
	state, err := tx.PluginState(area)
	if err != nil {
		return refuse(err)
	}
	facts := dropFacts(v, c.view, c.currency)
	out, err := plinkoapi.Drop.Decide(c.ctx, c.decider, sdk.Call[plinkoapi.DropFacts]{Facts: facts, State: state})
	if err != nil {
		return refuse(err)
	}
	if err := c.ctx.Err(); err != nil {
		// The asker has gone: committing now would hide a write behind an
		// error reply.
		return refuse(fmt.Errorf("%w: %w", sdk.ErrUnavailable, err))
	}
	d := out.Decision // passed PlinkoDrop's check against facts
	res := &dropResult{Tier: d.Tier}
	switch {
	case !d.Tier.IsChest():
		res.Tickets = int64(d.Tickets)
	case d.Exhausted:
		res.Tickets, res.Exhausted = int64(d.Tickets), true
	default:
		p := unowned(v, c.view, d.Tier)[d.PrizeIndex]
		res.Prize = &p
	}

	// The tickets after the drop, checked before the account is touched:
	// a payout past math.MaxInt64 (an operator's grant allows balances up
	// to it) would wrap round to a negative balance.
	tickets := v.Tickets
	if c.currency == plinkoapi.CurrencyTickets {
		tickets -= c.cost // have >= cost > 0: no wrap
	}
	if res.Tickets > 0 && tickets > math.MaxInt64-res.Tickets {
		return refuse(fmt.Errorf("%w: it holds %d after the cost, the drop pays %d, the largest balance is %d",
			ErrBalanceFull, tickets, res.Tickets, int64(math.MaxInt64)))
	}

	a := tx.Account()
	if c.currency == plinkoapi.CurrencyGold {
		a.Gold -= c.cost
	}
	a.Tickets = tickets + res.Tickets
	if res.Prize != nil {
		a.Upgrades = append(a.Upgrades, storage.Upgrade{ID: res.Prize.Upgrade})
	}
	if !bytes.Equal(out.State, state) {
		tx.SetPluginState(area, out.State)
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

var _ actors.ChangeFunc[*purchaseResult] = (*purchaseChange)(nil).apply

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

// apply is the change, run by actors.Apply. An item is owned when the
// account owns everything it grants; a grab bag owned in part grants the
// rest at its full cost.
func (c *purchaseChange) apply(tx *actors.Tx) (*purchaseResult, error) {
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
