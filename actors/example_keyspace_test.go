package actors_test

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// An area declares its records once, at package level. (A real area uses
// its own protobuf messages; wrapperspb keeps the example short.)
var (
	// per account: a vote per (account, guide id)
	guideVotes = storage.NewAccountKeyspace("example.guide_votes", storage.Proto[*wrapperspb.Int32Value]())
	// global: guide content per guide id
	guideTitles = storage.NewGlobalKeyspace("example.guide_titles", storage.Proto[*wrapperspb.StringValue]())
)

// vote is the area's Change: it reads and writes the account's own records
// through the Tx, inside the account's actor.
type vote struct {
	guide string
	value int32
}

func (v vote) Apply(tx *actors.Tx) (any, error) {
	if _, err := guideVotes.Get(tx.DB(), tx.ID(), v.guide); err == nil {
		return nil, fmt.Errorf("already voted on %s", v.guide)
	}
	return nil, guideVotes.Put(tx, v.guide, wrapperspb.Int32(v.value))
}

func Example_keyspaces() {
	db, _ := storage.Open("", &storage.Options{InMemory: true})
	defer db.Close()
	sys := actors.New(db, actors.Options{})
	defer sys.Shutdown()
	ctx := context.Background()

	// Global records: one writer, the registry, through UpdateGlobal.
	_, _ = sys.UpdateGlobal(ctx, func(g *actors.GlobalTx) (any, error) {
		for id, title := range map[string]string{"g/0001": "Pyro mid", "g/0002": "Devo support"} {
			if err := guideTitles.Put(g, id, wrapperspb.String(title)); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})

	acct, _ := sys.CreateAccount(ctx, &actors.NewAccount{Login: "SouL"})
	_, _ = sys.Apply(ctx, acct.ID, vote{"g/0002", 1})
	_, _ = sys.Apply(ctx, acct.ID, vote{"g/0001", -1})
	_, err := sys.Apply(ctx, acct.ID, vote{"g/0001", 1})
	fmt.Println(err)

	// Reads from anywhere, by key or by prefix, in key order.
	_ = guideTitles.Each(db, "g/", func(id string, t *wrapperspb.StringValue) error {
		v, _ := guideVotes.Get(db, acct.ID, id)
		fmt.Println(id, t.GetValue(), v.GetValue())
		return nil
	})
	// Output:
	// already voted on g/0001
	// g/0001 Pyro mid -1
	// g/0002 Devo support 1
}
