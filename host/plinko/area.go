package plinko

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// Paths of the area, as the client posts them. Routes is the one table
// that serves them.
const (
	PathBoard     = "/master/casino/"
	PathDrop      = "/master/casino/drop/"
	PathViewChest = "/master/casino/viewchest/"
	PathExchange  = "/master/ticketexchange"
	PathPurchase  = "/master/ticketexchange/purchase/"
)

// areaName is the area's name in routes and logs: the registry's.
var areaName = string(plinkoapi.Area)

// ChestPage is the most items one viewchest reply carries.
const ChestPage = 56

// Deps are what the plinko area needs.
type Deps struct {
	Sys     *actors.System
	Login   *login.Service
	Decider sdk.Caller // the area's supervisor in a server; a *sdk.Plugin in tests
	Config  Settings
	Log     *slog.Logger
	// OnDrop, when set, is told of every completed drop (the console's
	// observed tier distribution and ticket economy).
	OnDrop func(Drop)
}

// Drop is one completed drop as OnDrop sees it.
type Drop struct {
	Tier       plinkoapi.Tier
	Currency   plinkoapi.Currency
	Cost       int64 // paid, in Currency
	TicketsOut int64 // tickets paid back (ticket tier or exhausted chest)
}

// Area serves the Plinko and ticket exchange endpoints.
type Area struct {
	d       Deps
	log     *slog.Logger
	catalog *catalogCache
	tiers   []string // config.Board as strings
}

// New builds the area, checking its dependencies and configuration.
func New(d Deps) (*Area, error) {
	switch {
	case d.Sys == nil || d.Login == nil:
		return nil, errors.New("plinko: Sys and Login are required")
	case d.Decider == nil:
		return nil, errors.New("plinko: no decider (is the plinko plugin running?)")
	case d.Config.TicketCost <= 0 || d.Config.GoldCost <= 0:
		return nil, fmt.Errorf("plinko: costs must be > 0, got ticket_cost %d, gold_cost %d", d.Config.TicketCost, d.Config.GoldCost)
	}
	if b := slices.Sorted(slices.Values(d.Config.Board)); !slices.Equal(b, []int{1, 2, 3, 4, 5, 6}) {
		return nil, fmt.Errorf("plinko: board must list each tier 1..6 once, got %v", d.Config.Board)
	}
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Area{d: d, log: log.With("area", areaName), catalog: &catalogCache{sys: d.Sys}}
	for _, t := range d.Config.Board {
		a.tiers = append(a.tiers, strconv.Itoa(t))
	}
	return a, nil
}

// Routes are the paths the area serves: one table of path, handler and the
// failure shape used when a request fails before its handler runs.
func (a *Area) Routes() []server.Route {
	return []server.Route{
		{Path: PathBoard, Area: areaName, Handler: a.board, Outcome: replyOutcome, Fail: a.failWith(a.boardFail), Doc: server.Doc{
			Summary: "The Plinko board: tiers of the six slots, costs, balances and each chest's state.",
			Form:    cookieRequest{}, ReplyValue: boardReply{},
			Reply: "Success: `status_code` 1. Failure: `status_code` alone (codes in host/plinko/status.go).",
		}},
		{Path: PathDrop, Area: areaName, Handler: a.drop, Outcome: replyOutcome, Fail: a.failWith(func(err error) server.Response { return a.dropFail(err, nil) }), Doc: server.Doc{
			Summary: "One drop, paid in tickets or gold; the plugin decides the prize.",
			Form:    dropRequest{}, ReplyValue: dropReply{},
			Reply: "Success: `status_code` 1. Failure: the same shape with the error's `status_code` and the account's real balances.",
		}},
		{Path: PathViewChest, Area: areaName, Handler: a.viewChest, Outcome: replyOutcome, Fail: a.failWith(a.viewChestFail), Doc: server.Doc{
			Summary: "A page of up to 56 items of one chest (tier).",
			Form:    viewChestRequest{}, ReplyValue: viewChestReply{},
			Reply: "Success: `status_code` 1. Failure: `status_code` in front of an empty page.",
		}},
		{Path: PathExchange, Area: areaName, Handler: a.exchange, Outcome: replyOutcome, Fail: a.failWith(a.exchangeFail), Doc: server.Doc{
			Summary: "The ticket exchange's items and the account's tickets.",
			Form:    cookieRequest{}, ReplyValue: exchangeReply{},
			Reply: "Success: `status_code` 51 (an integer). Failure: the same shape with the error's code.",
		}},
		{Path: PathPurchase, Area: areaName, Handler: a.purchase, Outcome: replyOutcome, Fail: a.failWith(a.purchaseFail), Doc: server.Doc{
			Summary: "Buys one exchange item (grab bags included) with tickets.",
			Form:    purchaseRequest{}, ReplyValue: purchaseReply{},
			Reply: "Success: `status_code` \"51\" (a string); grab bags add `grabBagTheme`, `grabBagIDs`, `grabBagNames`, `grabBagPaths`, `grabBagTypes`. Failure: the same shape with the error's code and balances.",
		}},
	}
}

// failWith adapts an endpoint's failure reply to a server.FailFunc: a
// request that could not be read is a bad request.
//
// A request that reached its account's node in a cluster but got no answer
// (actors.ErrTimeout, see host/cluster) keeps its own status: it may have
// been served (StatusOutcomeUnknown), it was not a bad request.
func (a *Area) failWith(f func(error) server.Response) server.FailFunc {
	return func(err error) server.Response {
		if errors.Is(err, actors.ErrTimeout) {
			return f(err)
		}
		return f(fmt.Errorf("%w: %w", ErrBadRequest, err))
	}
}

// logFail logs a failure at a level fitting its status and returns it.
func (a *Area) logFail(path string, err error) Status {
	st := statusOf(err)
	if st == StatusInternal || st == StatusDeciderUnavailable {
		a.log.Error("plinko request failed", "path", path, "status", int(st), "err", err)
	} else {
		a.log.Debug("plinko request refused", "path", path, "status", int(st), "err", err)
	}
	return st
}

func (a *Area) php(v any) server.Response { return server.PHP(a.log, v) }

// cookieRequest is the form every endpoint sends. The cookie is not
// required by Decode so that a missing one gets the bad-cookie status.
type cookieRequest struct {
	Cookie string `form:"cookie" doc:"session cookie from the login"`
}

// authenticate returns the account of the request's cookie.
func (a *Area) authenticate(cookie string) (storage.AccountID, error) {
	sess, err := a.d.Login.Authenticate(cookie)
	if err != nil {
		return 0, err
	}
	return sess.AccountID, nil
}

// balances reads an account's balances from its live actor's published
// state, without a message or a copy of the account.
func (a *Area) balances(ctx context.Context, id storage.AccountID) (balances, error) {
	acct, err := a.d.Sys.Snapshot(ctx, id)
	if err != nil {
		return balances{}, err
	}
	return balancesOf(acct), nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// --- board ---

func (a *Area) board(ctx context.Context, r *wire.Request) server.Response {
	var req cookieRequest
	if err := r.Decode(&req); err != nil {
		return a.boardFail(fmt.Errorf("%w: %w", ErrBadRequest, err))
	}
	id, err := a.authenticate(req.Cookie)
	if err != nil {
		return a.boardFail(err)
	}
	view, err := a.catalog.get()
	if err != nil {
		return a.boardFail(err)
	}
	acct, err := a.balances(ctx, id)
	if err != nil {
		return a.boardFail(err)
	}
	amounts := make([]string, len(a.d.Config.Board))
	times := make([]string, len(a.d.Config.Board))
	for i, t := range a.d.Config.Board {
		amounts[i] = strconv.Itoa(len(view.chest(plinkoapi.Tier(t))))
		times[i] = itoa(view.cat.LastUpdate[t-1])
	}
	return a.php(boardReply{
		StatusCode: int(StatusOK), Tiers: a.tiers,
		TicketCost: strconv.Itoa(a.d.Config.TicketCost), GoldCost: strconv.Itoa(a.d.Config.GoldCost),
		UserGold: itoa(acct.Gold), Silver: itoa(acct.Silver), UserTickets: itoa(acct.Tickets),
		AmountOfProducts: strings.Join(amounts, ","), LastUpdateTime: strings.Join(times, ","),
	})
}

func (a *Area) boardFail(err error) server.Response {
	return a.php(boardError{StatusCode: int(a.logFail(PathBoard, err))})
}

// --- drop ---

type dropRequest struct {
	Cookie   string `form:"cookie" doc:"session cookie"`
	Currency string `form:"currency" doc:"what pays the drop: tickets or gold"`
}

// cost returns what one drop costs in currency c.
func (a *Area) cost(c plinkoapi.Currency) int64 {
	if c == plinkoapi.CurrencyGold {
		return int64(a.d.Config.GoldCost)
	}
	return int64(a.d.Config.TicketCost)
}

// drop runs one drop: authenticate, check the currency, then the whole
// drop (facts, decision, payment, prize, plugin state) in one change in
// the account's actor (see dropChange). Nothing is charged unless the
// change commits. Every refusal of an authenticated account shows its real
// balances.
func (a *Area) drop(ctx context.Context, r *wire.Request) server.Response {
	var req dropRequest
	if err := r.Decode(&req); err != nil {
		err = fmt.Errorf("%w: %w", ErrBadRequest, err)
		if id, aerr := a.authenticate(r.Form.Get("cookie")); aerr == nil {
			return a.dropFailFor(ctx, id, err)
		}
		return a.dropFail(err, nil)
	}
	id, err := a.authenticate(req.Cookie)
	if err != nil {
		return a.dropFail(err, nil)
	}
	cur := plinkoapi.Currency(req.Currency)
	if !cur.Valid() {
		return a.dropFailFor(ctx, id, fmt.Errorf("%w: %q", ErrBadCurrency, req.Currency))
	}
	view, err := a.catalog.get()
	if err != nil {
		return a.dropFailFor(ctx, id, err)
	}
	out, err := actors.Apply(ctx, a.d.Sys, id, (&dropChange{ctx: ctx, decider: a.d.Decider, view: view, currency: cur, cost: a.cost(cur)}).apply)
	if err != nil {
		var fe *fundsError
		var re *refusal
		switch {
		case errors.As(err, &fe):
			return a.dropFail(err, &fe.bal)
		case errors.As(err, &re):
			return a.dropFail(err, &re.bal)
		}
		// The change did not apply (a commit refused, a timeout): the
		// balances are the published ones.
		return a.dropFailFor(ctx, id, err)
	}
	if a.d.OnDrop != nil {
		a.d.OnDrop(Drop{Tier: out.Tier, Currency: cur, Cost: a.cost(cur), TicketsOut: out.Tickets})
	}
	reply := dropReply{
		UserTickets: itoa(out.After.Tickets), UserGold: itoa(out.After.Gold),
		StatusCode: StatusOK.String(), RandomTier: strconv.Itoa(int(out.Tier)),
		ProductID: "-1", ProductName: ticketProduct, ProductType: ticketProduct, ProductPath: ticketProduct,
		ProductsExhausted: out.Exhausted, TicketAmount: out.Tickets,
	}
	if out.Exhausted {
		// As the specification says: an exhausted chest answers
		// ticket_amount 0; user_tickets already includes its payout.
		reply.TicketAmount = 0
	}
	if p := out.Prize; p != nil {
		reply.ProductID, reply.ProductName, reply.ProductType, reply.ProductPath = itoa(p.ID), p.Name, p.Type, p.LocalPath
	}
	return a.php(reply)
}

// dropFailFor answers a refused drop of account id with its balances
// (zeros only when even they cannot be read).
func (a *Area) dropFailFor(ctx context.Context, id storage.AccountID, err error) server.Response {
	if bal, berr := a.balances(ctx, id); berr == nil {
		return a.dropFail(err, &bal)
	}
	return a.dropFail(err, nil)
}

// dropFail answers a failed drop in the drop's shape; bal are the
// account's balances when known.
func (a *Area) dropFail(err error, bal *balances) server.Response {
	st := a.logFail(PathDrop, err)
	reply := dropReply{UserTickets: "0", UserGold: "0", StatusCode: st.String(), RandomTier: "0", ProductID: "-1"}
	if bal != nil {
		reply.UserTickets, reply.UserGold = itoa(bal.Tickets), itoa(bal.Gold)
	}
	return a.php(reply)
}

// --- viewchest ---

type viewChestRequest struct {
	Cookie      string `form:"cookie" doc:"session cookie"`
	TierID      string `form:"tier_id" doc:"chest tier, 1-6"`
	TargetIndex string `form:"target_index" doc:"item the page is centred on (1-based)"`
}

// chestWindow returns the 1-based index of the first item and the number of
// items of the page that holds target in a chest of total items. As in the
// recorded replies, the page starts ChestPage/2 items before the target
// (never before item 1) and runs for up to ChestPage items: target 769 of
// 772 gave items 741 to 772.
func chestWindow(total, target int) (first, n int) {
	first = max(1, target-ChestPage/2)
	n = min(ChestPage, total-first+1)
	return first, n
}

func (a *Area) viewChest(_ context.Context, r *wire.Request) server.Response {
	var req viewChestRequest
	if err := r.Decode(&req); err != nil {
		return a.viewChestFail(fmt.Errorf("%w: %w", ErrBadRequest, err))
	}
	tier, terr := strconv.Atoi(req.TierID)
	target, ierr := strconv.Atoi(req.TargetIndex)
	echo := viewChestReply{TierID: tier, TargetIndex: target}
	fail := func(err error) server.Response {
		return a.php(viewChestError{StatusCode: int(a.logFail(PathViewChest, err)), viewChestReply: echo})
	}
	if _, err := a.authenticate(req.Cookie); err != nil {
		return fail(err)
	}
	if terr != nil || ierr != nil || !plinkoapi.Tier(tier).IsChest() {
		return fail(fmt.Errorf("%w: tier_id %q, target_index %q", ErrBadRequest, req.TierID, req.TargetIndex))
	}
	view, err := a.catalog.get()
	if err != nil {
		return fail(err)
	}
	chest := view.chest(plinkoapi.Tier(tier))
	if len(chest) == 0 {
		return a.php(echo) // an empty chest: no items, nothing to contain the target
	}
	if target < 1 || target > len(chest) {
		return fail(fmt.Errorf("%w: target_index %d outside 1..%d", ErrBadRequest, target, len(chest)))
	}
	first, n := chestWindow(len(chest), target)
	page := chest[first-1 : first-1+n]
	names, types, paths, ids := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, p := range page {
		names[i], types[i], paths[i], ids[i] = p.Name, p.ShortType, p.LocalPath, itoa(p.ID)
	}
	return a.php(viewChestReply{
		TierID: tier, ItemsAmount: n, FirstItemIndex: first, TargetIndex: target,
		ProductNames: strings.Join(names, ","), ProductTypes: strings.Join(types, ","),
		ProductPaths: strings.Join(paths, ","), ProductIDs: strings.Join(ids, ","),
	})
}

func (a *Area) viewChestFail(err error) server.Response {
	return a.php(viewChestError{StatusCode: int(a.logFail(PathViewChest, err))})
}

// --- ticket exchange ---

func (a *Area) exchange(ctx context.Context, r *wire.Request) server.Response {
	var req cookieRequest
	if err := r.Decode(&req); err != nil {
		return a.exchangeFail(fmt.Errorf("%w: %w", ErrBadRequest, err))
	}
	id, err := a.authenticate(req.Cookie)
	if err != nil {
		return a.exchangeFail(err)
	}
	view, err := a.catalog.get()
	if err != nil {
		return a.exchangeFailFor(ctx, id, err)
	}
	acct, err := a.balances(ctx, id)
	if err != nil {
		return a.exchangeFail(err)
	}
	items, err := view.exchangeItems()
	if err != nil {
		return a.exchangeFailWith(err, acct.Tickets)
	}
	return a.php(exchangeListReply{StatusCode: int(StatusExchangeOK), Items: items, UserTickets: itoa(acct.Tickets)})
}

// exchangeFail answers a failed list in the list's shape, without items
// and with no account known (0 tickets).
func (a *Area) exchangeFail(err error) server.Response { return a.exchangeFailWith(err, 0) }

// exchangeFailFor answers a failed list of account id with its tickets.
func (a *Area) exchangeFailFor(ctx context.Context, id storage.AccountID, err error) server.Response {
	if bal, berr := a.balances(ctx, id); berr == nil {
		return a.exchangeFailWith(err, bal.Tickets)
	}
	return a.exchangeFail(err)
}

func (a *Area) exchangeFailWith(err error, tickets int64) server.Response {
	return a.php(exchangeReply{StatusCode: int(a.logFail(PathExchange, err)), Items: []exchangeItem{}, UserTickets: itoa(tickets)})
}

type purchaseRequest struct {
	Cookie string `form:"cookie" doc:"session cookie"`
	ID     string `form:"id" doc:"product id of the item"`
}

func (a *Area) purchase(ctx context.Context, r *wire.Request) server.Response {
	var req purchaseRequest
	if err := r.Decode(&req); err != nil {
		err = fmt.Errorf("%w: %w", ErrBadRequest, err)
		if id, aerr := a.authenticate(r.Form.Get("cookie")); aerr == nil {
			return a.purchaseFailFor(ctx, id, err)
		}
		return a.purchaseFail(err)
	}
	id, err := a.authenticate(req.Cookie)
	if err != nil {
		return a.purchaseFail(err)
	}
	pid, err := strconv.ParseInt(req.ID, 10, 64)
	if err != nil {
		return a.purchaseFailFor(ctx, id, fmt.Errorf("%w: id %q", ErrBadRequest, req.ID))
	}
	view, err := a.catalog.get()
	if err != nil {
		return a.purchaseFailFor(ctx, id, err)
	}
	i, ok := view.exchange[pid]
	if !ok {
		return a.purchaseFailFor(ctx, id, fmt.Errorf("%w: product %d", ErrUnknownItem, pid))
	}
	item := view.cat.Exchange[i]
	out, err := actors.Apply(ctx, a.d.Sys, id, (&purchaseChange{item: item}).apply)
	if err != nil {
		var fe *fundsError
		var oe *ownedError
		switch {
		case errors.As(err, &fe):
			return a.purchaseFailWith(err, fe.bal.Tickets)
		case errors.As(err, &oe):
			return a.purchaseFailWith(err, oe.bal.Tickets)
		}
		// Not applied (a commit refused, a timeout): the published tickets.
		return a.purchaseFailFor(ctx, id, err)
	}
	ok51 := purchaseReply{StatusCode: StatusExchangeOK.String(), TicketsRemaining: out.After.Tickets, GrabBag: item.GrabBag != nil}
	if item.GrabBag == nil {
		return a.php(ok51)
	}
	bag := item.GrabBag
	n := len(bag.Products)
	ids, names, paths, types := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, p := range bag.Products {
		ids[i], names[i], paths[i], types[i] = itoa(p.ID), p.Name, p.LocalPath, p.Type
	}
	return a.php(grabBagReply{purchaseReply: ok51, Theme: bag.Theme,
		IDs: strings.Join(ids, "|"), Names: strings.Join(names, "|"), Paths: strings.Join(paths, "|"), Types: strings.Join(types, "|")})
}

// purchaseFailFor answers a failure with the account's current tickets.
func (a *Area) purchaseFailFor(ctx context.Context, id storage.AccountID, err error) server.Response {
	if acct, aerr := a.balances(ctx, id); aerr == nil {
		return a.purchaseFailWith(err, acct.Tickets)
	}
	return a.purchaseFail(err)
}

func (a *Area) purchaseFailWith(err error, tickets int64) server.Response {
	return a.php(purchaseReply{StatusCode: a.logFail(PathPurchase, err).String(), TicketsRemaining: tickets})
}

// purchaseFail answers a failure when no account is known (0 tickets).
func (a *Area) purchaseFail(err error) server.Response { return a.purchaseFailWith(err, 0) }
