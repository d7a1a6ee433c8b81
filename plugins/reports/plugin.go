package reports

import (
	"context"

	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Plugin is the bundled reports plugin: Decide served as decision
// reports.assess. It keeps no state (the counts it needs come in the facts).
func Plugin() *sdk.Plugin {
	p := &sdk.Plugin{Name: "bundled", Version: "1"}
	sdk.Handle(p, reportsapi.Assess, func(_ context.Context, c sdk.Call[reportsapi.Facts]) (sdk.Result[reportsapi.Decision], error) {
		return sdk.Result[reportsapi.Decision]{Decision: Decide(c.Facts)}, nil
	})
	return p
}
