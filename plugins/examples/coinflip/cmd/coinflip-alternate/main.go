// Command coinflip-alternate is an external plugin of the coin-flip area:
// its coin alternates, losing after a win and winning after a loss,
// whatever the odds. It keeps the contract's state (coinflipapi.State), so
// the host's "coinflip show" reads it as it reads the bundled plugin's.
//
//	go build -o ./coinflip-alternate ./plugins/examples/coinflip/cmd/coinflip-alternate
//	go run ./host serve --plugin coinflip=$PWD/coinflip-alternate
package main

import (
	"context"

	"github.com/honmaster/masterserver/plugins/examples/coinflip/coinflipapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

func main() {
	p := &sdk.Plugin{Name: "coinflip-alternate", Version: "1.0.0"}
	sdk.HandleState(p, coinflipapi.Flip, coinflipapi.Schema, func(_ context.Context, _ coinflipapi.FlipFacts, st coinflipapi.State) (coinflipapi.FlipDecision, coinflipapi.State, error) {
		st = st.Next(st.Streak == 0) // a loss (or no flip yet) is followed by a win
		return coinflipapi.FlipDecision{Won: st.Streak > 0, Streak: st.Streak}, st, nil
	})
	sdk.Serve(p)
}
