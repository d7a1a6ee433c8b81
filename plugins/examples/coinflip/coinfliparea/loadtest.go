package coinfliparea

import (
	"context"
	"math/rand/v2"
	"net/url"

	"github.com/honmaster/masterserver/host/loadtest"
)

// The area's load-test operation: "honmaster loadtest --mix coinflip=1,...".
func init() {
	loadtest.RegisterOperation(loadtest.Operation{Name: name, Requests: 1, Do: loadFlip,
		NeedsOperator: "granting tickets", Spends: true,
		Doc: "a coin flip staking 1 ticket (an example area): user_tickets must equal the balance before + 1 when won, - 1 when lost"})
}

// loadFlip flips once, staking 1 ticket, and checks the balance the reply
// gives against the run's bookkeeping (the end-of-run check compares
// every account's balance with it).
func loadFlip(ctx context.Context, e *loadtest.Env, a *loadtest.Account, _ *rand.Rand) error {
	arr, err := e.Post(ctx, PathFlip, url.Values{"cookie": {a.Cookie()}, "stake": {"1"}}, 200)
	if err != nil {
		if loadtest.NoReply(err) {
			a.MarkUncertain() // the flip may or may not have moved the stake
		}
		return err
	}
	if ok, _ := arr.Bool("success"); !ok {
		msg, _ := arr.String("error")
		return loadtest.Fail("refused:coinflip", "%s", msg)
	}
	won, _ := arr.Bool("won")
	after, _ := arr.Int("user_tickets")
	want := a.Tickets() - 1
	if won {
		want = a.Tickets() + 1
	}
	if a.BalanceKnown() && after != want {
		return loadtest.Fail("balance", "user_tickets %d after a flip (won %v), want %d", after, won, want)
	}
	if won {
		a.Win(1)
	} else {
		a.Spend(1, 0)
	}
	return nil
}
