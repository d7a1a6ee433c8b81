package actors_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// spend is a Change: it runs inside the account's actor, one at a time, and
// what it writes is committed as one synced batch before Apply returns.
type spend struct{ tickets int64 }

var errBroke = errors.New("not enough tickets")

func (c spend) Apply(tx *actors.Tx) (any, error) {
	if tx.View().Tickets < c.tickets {
		return nil, errBroke // nothing is written
	}
	a := tx.Account()
	a.Tickets -= c.tickets
	return a.Tickets, nil
}

func Example() {
	db, _ := storage.Open("", &storage.Options{InMemory: true})
	defer db.Close()
	sys := actors.New(db, actors.Options{})
	defer sys.Shutdown()
	ctx := context.Background()

	acct, _ := sys.CreateAccount(ctx, &actors.NewAccount{Login: "SouL", Account: storage.Account{Tickets: 100}})
	left, err := sys.Apply(ctx, acct.ID, spend{66})
	fmt.Println(left, err)
	_, err = sys.Apply(ctx, acct.ID, spend{66})
	fmt.Println(err)
	stored, _ := db.Account(acct.ID)
	fmt.Println(stored.Tickets)
	// Output:
	// 34 <nil>
	// not enough tickets
	// 34
}
