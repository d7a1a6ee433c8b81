package loadtest

import (
	"errors"
	"fmt"
	"slices"
)

// The balance checker. Each account's tickets and gold are followed
// through the replies (Spend, Win); an operation whose outcome the
// tester cannot learn (its reply was lost, or said "outcome unknown", as
// Plinko's status 11 does) is recorded with what it would have changed
// had it happened (Unknown). The next reply that states the balances must
// then equal the balances followed plus the effect of some of those
// operations: the account is re-anchored there (the balances taken from
// the reply, the operations forgotten), and when no choice of them
// explains the difference the run fails (a "balance" failure, and a
// mismatch of the end-of-run check). The end-of-run check does the same
// with the balances the operator API reads.
//
// Forgetting the operations at the next reply assumes they settled
// before it: the server answers "outcome unknown" only once the
// request's own deadline has passed or its node stopped answering, and a
// request never commits after its deadline (actors.ErrExpired) nor on a
// node that lost the account (owner epochs).

// Unknown is what an operation of unknown outcome would have changed: the
// tickets by one of Tickets (a drop's payout is one of its tiers'), the
// gold by Gold.
type Unknown struct {
	Tickets []int64
	Gold    int64
}

// maxPending is how many operations of unknown outcome in a row an account
// may have before the checker stops following it (the choices double with
// each): it is then left out of the end-of-run check, and counted.
const maxPending = 12

// Unknown records an operation of the account whose outcome is unknown.
func (a *Account) Unknown(u Unknown) {
	if !a.known || a.uncertain {
		return
	}
	if len(a.pending) == maxPending {
		a.uncertain, a.pending = true, nil
		return
	}
	a.pending = append(a.pending, u)
}

// outcomes are the changes (tickets, gold) the pending operations may
// have made, each a choice of which of them happened.
func outcomes(pending []Unknown) map[[2]int64]bool {
	sums := map[[2]int64]bool{{0, 0}: true}
	for _, u := range pending {
		next := make(map[[2]int64]bool, len(sums)*(1+len(u.Tickets)))
		for s := range sums {
			next[s] = true
			for _, t := range u.Tickets {
				next[[2]int64{s[0] + t, s[1] + u.Gold}] = true
			}
		}
		sums = next
	}
	return sums
}

// CheckBalances compares the tickets and gold a reply states with those
// the replies so far said, over the operations of unknown outcome since
// (balance.go): it re-anchors the account when some of them explain the
// difference, and fails (kind "balance") when none do.
func (a *Account) CheckBalances(what string, tickets, gold int64) error {
	if !a.known || a.uncertain {
		return nil
	}
	d := [2]int64{tickets - a.tickets, gold - a.gold}
	if d == [2]int64{} || len(a.pending) > 0 && outcomes(a.pending)[d] {
		a.reanchor(d)
		return nil
	}
	return a.disagrees(what, fmt.Sprintf("reply says %d tickets %d gold, expected %d tickets %d gold", tickets, gold, a.tickets, a.gold), d)
}

// CheckTickets is CheckBalances for a reply that states the tickets only.
// When the operations of unknown outcome that explain the tickets leave
// the gold in doubt, the account is not re-anchored yet (a later reply or
// the end-of-run check settles it).
func (a *Account) CheckTickets(what string, tickets int64) error {
	if !a.known || a.uncertain {
		return nil
	}
	dt := tickets - a.tickets
	if len(a.pending) == 0 {
		if dt == 0 {
			return nil
		}
		return a.disagrees(what, fmt.Sprintf("reply says %d tickets, expected %d", tickets, a.tickets), [2]int64{dt, 0})
	}
	var golds []int64
	for o := range outcomes(a.pending) {
		if o[0] == dt && !slices.Contains(golds, o[1]) {
			golds = append(golds, o[1])
		}
	}
	switch len(golds) {
	case 0:
		return a.disagrees(what, fmt.Sprintf("reply says %d tickets, expected %d plus what %d operations of unknown outcome may have changed",
			tickets, a.tickets, len(a.pending)), [2]int64{dt, 0})
	case 1:
		a.reanchor([2]int64{dt, golds[0]})
	}
	return nil
}

// reanchor takes the balances as they are d away from those followed, the
// operations of unknown outcome settled.
func (a *Account) reanchor(d [2]int64) {
	if len(a.pending) > 0 {
		a.reanchored++
	}
	a.pending = nil
	a.tickets += d[0]
	a.gold += d[1]
}

// disagrees records a balance no operation of unknown outcome explains: the
// run fails. The account goes on from the balances the reply stated.
func (a *Account) disagrees(what, detail string, d [2]int64) error {
	if a.mismatch == "" {
		a.mismatch = fmt.Sprintf("%s: %s: %s", a.login, what, detail)
	}
	a.pending = nil
	a.tickets += d[0]
	a.gold += d[1]
	return fail("balance", "%s: %s", what, detail)
}

// checkServerBalances is the end-of-run check of an account against the
// balances the server holds: nil when they are those the replies said,
// over some of the operations of unknown outcome since, and no reply of
// the run disagreed.
func (a *Account) checkServerBalances(tickets, gold int64) error {
	wantT, wantG, n, earlier := a.tickets, a.gold, len(a.pending), a.mismatch
	err := a.CheckBalances("server", tickets, gold)
	switch {
	case earlier != "":
		return errors.New(earlier)
	case err != nil:
		return fmt.Errorf("%s: server has %d tickets %d gold; the replies said %d tickets %d gold, plus what %d operations of unknown outcome may have changed",
			a.login, tickets, gold, wantT, wantG, n)
	}
	return nil
}
