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
	sdk.Handle(p, coinflipapi.Flip, func(_ context.Context, c sdk.Call[coinflipapi.FlipFacts]) (sdk.Result[coinflipapi.FlipDecision], error) {
		st, err := coinflipapi.DecodeState(c.State)
		if err != nil {
			return sdk.Result[coinflipapi.FlipDecision]{}, err
		}
		st = st.Next(st.Streak == 0) // a loss (or no flip yet) is followed by a win
		return sdk.Result[coinflipapi.FlipDecision]{Decision: coinflipapi.FlipDecision{Won: st.Streak > 0, Streak: st.Streak},
			State: coinflipapi.EncodeState(st)}, nil
	})
	sdk.Serve(p)
}
