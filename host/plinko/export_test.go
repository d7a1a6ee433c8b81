package plinko

import (
	"context"

	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
)

// PathCeiling is the test-only no-op drop of the benchmarks.
const PathCeiling = "/bench/ceiling/drop/"

// CeilingRoute is the no-op ceiling of BenchmarkDropCeiling256: the drop's
// HTTP path up to and including authentication and the currency check,
// then a drop-shaped reply, without catalog, actor, plugin or commit.
func (a *Area) CeilingRoute() server.Route {
	return area.NewRoute(a.replies, area.Route[dropRequest, dropReply]{Path: PathCeiling, Fail: dropFail,
		Serve: func(_ context.Context, req dropRequest) (dropReply, error) {
			if _, err := a.authenticate(req.Cookie); err != nil {
				return dropReply{}, err
			}
			if !plinkoapi.Currency(req.Currency).Valid() {
				return dropReply{}, ErrBadCurrency
			}
			return dropReply{UserTickets: "0", UserGold: "0", StatusCode: StatusOK.String(), RandomTier: "6",
				ProductID: "-1", ProductName: ticketProduct, ProductType: ticketProduct, ProductPath: ticketProduct, TicketAmount: 30}, nil
		}})
}
