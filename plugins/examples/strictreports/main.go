// Command strictreports is an example reports plugin: the bundled rule,
// plus a rule of the operator's own. It refuses reports of "Impersonating
// Staff" (the community has no staff in matches, so such reports are
// noise) with the refusal "rule", and gives every accepted report of chat
// abuse the highest priority the host allows.
//
//	go build -o ./strictreports ./plugins/examples/strictreports
//	go run ./host serve --plugin reports=$PWD/strictreports
package main

import (
	"context"

	"github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

func decide(f reportsapi.Facts) reportsapi.Decision {
	if f.Reason == reportsapi.ReasonImpersonation {
		return reportsapi.Decision{Refusal: reportsapi.RefusalRule}
	}
	d := reports.Decide(f)
	if d.Accept && f.Reason == reportsapi.ReasonChatAbuse {
		d.Priority = f.Limits.WithDefaults().MaxPriority
	}
	return d
}

func main() {
	p := &sdk.Plugin{Name: "strictreports", Version: "1.0.0"}
	sdk.Handle(p, reportsapi.Assess, func(_ context.Context, c sdk.Call[reportsapi.Facts]) (sdk.Result[reportsapi.Decision], error) {
		return sdk.Result[reportsapi.Decision]{Decision: decide(c.Facts)}, nil
	})
	sdk.Serve(p)
}
