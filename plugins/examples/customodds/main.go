package main

import (
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// odds: Diamond 10%, Gold 10%, Silver 20%, Bronze 20%, 60 tickets 20%,
// 30 tickets 20%.
var odds = plinkoapi.Odds{0.10, 0.10, 0.20, 0.20, 0.20, 0.20}

func main() {
	sdk.Serve((&plinkoapi.DefaultDecider{Name: "customodds", Version: "1.0.0", Odds: odds}).Plugin())
}
