package dailyarea

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"

	"github.com/honmaster/masterserver/host/loadtest"
)

// The area's load-test operation: "honmaster loadtest --mix daily=1,...".
func init() {
	loadtest.RegisterOperation(loadtest.Operation{Name: name, Requests: 1, Do: loadClaim,
		Doc: "claims the daily reward (an example area): success; a granted claim's user_tickets must equal the balance before + tickets " +
			"(the first claim of a run's day pays, the others answer granted 0)"})
}

// loadClaim claims once as the test account. Its balance is the run's
// (loadtest.Account): a granted claim's tickets are added with Win, so the
// end-of-run check, which compares every account's balance with what the
// replies said, still holds with drops in the same mix.
func loadClaim(ctx context.Context, e *loadtest.Env, a *loadtest.Account, _ *rand.Rand) error {
	rep, err := e.Client().PostForm(ctx, PathClaim, url.Values{"cookie": {a.Cookie()}})
	if err != nil {
		if loadtest.NoReply(err) {
			a.MarkUncertain() // the claim may or may not have paid
		}
		return err
	}
	if rep.Status != 200 {
		return &loadtest.Failure{Kind: fmt.Sprintf("http_%d", rep.Status), Detail: string(rep.Body)}
	}
	arr, err := rep.PHP()
	if err != nil {
		return &loadtest.Failure{Kind: "decode", Detail: err.Error()}
	}
	if ok, _ := arr.Bool("success"); !ok {
		msg, _ := arr.String("error")
		return &loadtest.Failure{Kind: "refused:daily", Detail: msg}
	}
	granted, _ := arr.Bool("granted")
	paid, _ := arr.Int("tickets")
	after, _ := arr.Int("user_tickets")
	switch {
	case !granted && paid != 0:
		return &loadtest.Failure{Kind: "decode", Detail: fmt.Sprintf("a claim not granted paid %d", paid)}
	case a.BalanceKnown() && after != a.Tickets()+paid:
		return &loadtest.Failure{Kind: "balance", Detail: fmt.Sprintf("user_tickets %d after a claim paying %d, want %d", after, paid, a.Tickets()+paid)}
	}
	a.Win(paid)
	return nil
}
