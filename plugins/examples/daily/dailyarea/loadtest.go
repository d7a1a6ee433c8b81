package dailyarea

import (
	"context"
	"fmt"
	"net/url"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/loadtest"
)

// The area's load-test operation: "honmaster loadtest --mix daily=1,...".
func init() {
	loadtest.RegisterOperation(loadtest.Operation{Name: name, Requests: 1, Do: loadClaim,
		Doc: "claims the daily reward (an example area): success; a granted claim's user_tickets must equal the balance before + tickets " +
			"(the first claim of a run's day pays, the others answer granted 0)"})
}

func loadClaim(ctx context.Context, c *client.Client, a loadtest.Account) (loadtest.Result, error) {
	rep, err := c.PostForm(ctx, PathClaim, url.Values{"cookie": {a.Cookie}})
	if err != nil {
		return loadtest.Result{}, err
	}
	if rep.Status != 200 {
		return loadtest.Result{}, &loadtest.Failure{Kind: fmt.Sprintf("http_%d", rep.Status), Detail: string(rep.Body)}
	}
	arr, err := rep.PHP()
	if err != nil {
		return loadtest.Result{}, &loadtest.Failure{Kind: "decode", Detail: err.Error()}
	}
	if ok, _ := arr.Bool("success"); !ok {
		msg, _ := arr.String("error")
		return loadtest.Result{}, &loadtest.Failure{Kind: "refused:daily", Detail: msg}
	}
	granted, _ := arr.Bool("granted")
	paid, _ := arr.Int("tickets")
	after, _ := arr.Int("user_tickets")
	switch {
	case !granted && paid != 0:
		return loadtest.Result{}, &loadtest.Failure{Kind: "decode", Detail: fmt.Sprintf("a claim not granted paid %d", paid)}
	case a.TicketsKnown && after != a.Tickets+paid:
		return loadtest.Result{Tickets: paid}, &loadtest.Failure{Kind: "balance",
			Detail: fmt.Sprintf("user_tickets %d after a claim paying %d, want %d", after, paid, a.Tickets+paid)}
	}
	return loadtest.Result{Tickets: paid}, nil
}
