package plinkoapi_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
)

// A custom decider that changes only the odds: everything else (payouts,
// exhausted chests, the prize pick) comes from the default decider.
func ExampleWithOdds() {
	p := plinkoapi.WithOdds(plinkoapi.Odds{0.10, 0.10, 0.20, 0.20, 0.20, 0.20})
	fmt.Println(p.Odds, p.Odds.Validate())
	// Output: [0.1 0.1 0.2 0.2 0.2 0.2] <nil>
}

// A seeded source makes drops reproducible in tests.
func ExampleDefaultDecider_Drop() {
	p := &plinkoapi.DefaultDecider{Source: rand.NewPCG(1, 2)}
	facts := plinkoapi.DropFacts{AccountID: 7, Currency: plinkoapi.CurrencyTickets, Unowned: [4]int{0, 3, 10, 40}}
	for range 4 {
		d, _ := p.Drop(context.Background(), facts)
		fmt.Printf("%s prize=%d tickets=%d exhausted=%v\n", d.Tier, d.PrizeIndex, d.Tickets, d.Exhausted)
	}
	// Output:
	// tickets30 prize=-1 tickets=30 exhausted=false
	// bronze prize=31 tickets=0 exhausted=false
	// bronze prize=9 tickets=0 exhausted=false
	// bronze prize=19 tickets=0 exhausted=false
}
