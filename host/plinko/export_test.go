package plinko

import (
	"context"
	"fmt"

	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/wire"
)

// PathCeiling is the test-only no-op drop of the benchmarks.
const PathCeiling = "/bench/ceiling/drop/"

// CeilingRoute is the no-op ceiling of BenchmarkDropCeiling256: the drop's
// HTTP path up to and including authentication and the currency check,
// then a drop-shaped reply, without catalog, actor, plugin or commit.
func (a *Area) CeilingRoute() server.Route {
	return server.Route{Path: PathCeiling, Area: areaName, Handler: func(_ context.Context, r *wire.Request) server.Response {
		var req dropRequest
		if err := r.Decode(&req); err != nil {
			return a.dropFail(fmt.Errorf("%w: %w", ErrBadRequest, err), nil)
		}
		if _, err := a.authenticate(req.Cookie); err != nil {
			return a.dropFail(err, nil)
		}
		if !plinkoapi.Currency(req.Currency).Valid() {
			return a.dropFail(ErrBadCurrency, nil)
		}
		return a.php(dropReply{UserTickets: "0", UserGold: "0", StatusCode: StatusOK.String(), RandomTier: "6",
			ProductID: "-1", ProductName: ticketProduct, ProductType: ticketProduct, ProductPath: ticketProduct, TicketAmount: 30})
	}}
}
