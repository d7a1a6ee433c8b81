package loadtest

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/honmaster/masterserver/host/client"
)

// Operation is a load-test operation an area adds to the mix from its own
// package (RegisterOperation): the area's requests, made as one logged-in
// test account, and their replies checked.
type Operation struct {
	Name     string // the mix's name for it, e.g. "daily"
	Doc      string // for --help and docs/loadtest.md
	Requests int    // HTTP requests per operation
	// Reads: the operation changes nothing on the server, so a request
	// that met a connection closed under it may be sent again.
	Reads bool
	// Do runs the operation. A check that fails returns a *Failure with a
	// kind of the area's ("balance", "refused:..."); any other error counts
	// as a reply lost in transport, and the account then leaves the
	// end-of-run check.
	Do func(ctx context.Context, c *client.Client, a Account) (Result, error)
}

// Account is a test account as an Operation sees it.
type Account struct {
	Login, ID, Cookie string
	// Tickets is the account's ticket balance as the replies so far said;
	// TicketsKnown is false until the run granted its tickets, and when an
	// earlier reply was lost.
	Tickets      int64
	TicketsKnown bool
}

// Result is what an operation changed that the run keeps track of.
type Result struct {
	Tickets int64 // tickets the account gained (a payment) or lost
}

// RegisterOperation adds op to the operations a mix may name. Call it from
// an init function. It panics when the name is taken or op is incomplete:
// programming errors any test catches.
func RegisterOperation(op Operation) {
	if _, taken := operations[op.Name]; taken || op.Name == "" || op.Do == nil || op.Requests < 1 {
		panic(fmt.Sprintf("loadtest: operation %q registered twice or incomplete", op.Name))
	}
	operations[op.Name] = operation{requests: op.Requests, reads: op.Reads,
		do: func(ctx context.Context, e *env, a *account, _ *rand.Rand) error {
			res, err := op.Do(ctx, e.c, Account{Login: a.login, ID: a.id, Cookie: a.sess.Cookie,
				Tickets: a.tickets, TicketsKnown: a.known && !a.uncertain})
			if err != nil {
				if noReply(err) {
					a.uncertain = true // its effect is unknown
				}
				return err
			}
			a.tickets += res.Tickets
			if res.Tickets >= 0 {
				a.wonTickets += res.Tickets
			} else {
				a.spentTickets -= res.Tickets
			}
			return nil
		}}
	OperationDoc[op.Name] = op.Doc
}
