package actors_test

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// gift is a kind of effect on two accounts, registered once at package
// level (or from an area's init): the first share debits the sender and
// may refuse, the second credits the receiver.
var gift = actors.RegisterEffect("example.gift", func(tx *actors.Tx, e *storage.Effect, share int) error {
	n := int64(binary.BigEndian.Uint64(e.Payload))
	if share == 0 {
		if tx.View().Tickets < n {
			return errBroke // nothing at all is written: the gift never happened
		}
		tx.Account().Tickets -= n
		return nil
	}
	tx.Account().Tickets += n
	return nil
})

func ExampleEffectKind_Start() {
	db, _ := storage.Open("", &storage.Options{InMemory: true})
	defer db.Close()
	sys := actors.New(db, actors.Options{EffectRetry: actors.DefaultEffectRetry}) // a server's: resumes after a crash
	defer sys.Shutdown()
	ctx := context.Background()
	from, _ := sys.CreateAccount(ctx, &actors.NewAccount{Login: "SouL", Account: storage.Account{Tickets: 100}})
	to, _ := sys.CreateAccount(ctx, &actors.NewAccount{Login: "Moon", Account: storage.Account{Tickets: 5}})

	tickets := func(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }
	_, err := gift.Start(ctx, sys, tickets(60), from.ID, to.ID)
	fmt.Println(err)
	_, err = gift.Start(ctx, sys, tickets(60), from.ID, to.ID)
	fmt.Println(err)
	a, _ := db.Account(from.ID)
	b, _ := db.Account(to.ID)
	fmt.Println(a.Tickets, b.Tickets)
	// Output:
	// <nil>
	// not enough tickets
	// 40 65
}
