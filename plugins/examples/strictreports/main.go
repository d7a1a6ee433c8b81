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
	"github.com/honmaster/masterserver/plugins/sdk"
)

func decide(f reports.Facts) reports.Decision {
	if f.Reason == reports.ReasonImpersonation {
		return reports.Decision{Refusal: reports.RefusalRule}
	}
	d := reports.Decide(f)
	if d.Accept && f.Reason == reports.ReasonChatAbuse {
		d.Priority = f.Limits.WithDefaults().MaxPriority
	}
	return d
}

func main() {
	p := &sdk.Plugin{Name: "strictreports", Version: "1.0.0"}
	sdk.Handle(p, sdk.ReportsAssess, func(_ context.Context, c sdk.Call[reports.Facts]) (sdk.Result[reports.Decision], error) {
		return sdk.Result[reports.Decision]{Decision: decide(c.Facts)}, nil
	})
	sdk.Serve(p)
}
