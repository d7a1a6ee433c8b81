package plinko

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/limit"
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
	// Now is the clock of the drop and purchase limits (nil: the wall
	// clock).
	Now func() time.Time
	// Nodes is how many cluster nodes each count an address's drops and
	// purchases alone (config.Limits.SharedBy; 0 or 1: this node alone):
	// the address's budget is cut to this node's share. An account's own
	// budget is whole: its requests all go to its node.
	Nodes int
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
	replies *area.Replies
	catalog *catalogCache
	tiers   []string // config.Board as strings
	// writes and writesByAddress bound the drops and purchases of one
	// account and of one client address (write_burst, write_every;
	// SetWriteRates).
	writes, writesByAddress *limit.Keyed
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
	a := &Area{d: d, log: log.With("area", areaName), replies: replies.WithLog(log), catalog: &catalogCache{sys: d.Sys}}
	for _, t := range d.Config.Board {
		a.tiers = append(a.tiers, strconv.Itoa(t))
	}
	perAccount, perAddress := writeRates(d.Config, d.Nodes)
	a.writes = limit.NewAdjustable(perAccount, 0, d.Now)
	a.writesByAddress = limit.NewAdjustable(perAddress, 0, d.Now)
	return a, nil
}

// writeRates are the drop and purchase rates of s: one account's, and one
// address's over all its accounts (AddressFactor times the burst, as many
// times the pace), the address's cut to the share of one of nodes
// (Deps.Nodes). write_burst 0 turns both off.
func writeRates(s Settings, nodes int) (perAccount, perAddress limit.Rate) {
	if s.WriteBurst <= 0 || s.WriteEvery.Duration <= 0 {
		return limit.Rate{}, limit.Rate{}
	}
	return limit.Rate{Burst: s.WriteBurst, Every: s.WriteEvery.Duration},
		limit.Rate{Burst: AddressFactor * s.WriteBurst, Every: max(s.WriteEvery.Duration/AddressFactor, 1)}.Share(nodes)
}

// SetWriteRates puts the drop and purchase rates of s (write_burst,
// write_every: a configuration reload) in force at once: what an account
// or an address spent stays spent, a raised burst adds its difference,
// a lowered one caps every bucket at it; write_burst 0 turns them off.
func (a *Area) SetWriteRates(s Settings) {
	perAccount, perAddress := writeRates(s, a.d.Nodes)
	a.writes.SetRate(perAccount)
	a.writesByAddress.SetRate(perAddress)
}

// admitWrite lets a drop or a purchase of the cookie's account from the
// client address addr go on, or refuses it with ErrTooManyRequests, before
// the plugin is called or the account's actor does anything. The address
// is counted first, as the matches area counts its submissions; its token
// is given back when the request turns out not to be an account's (a dead
// cookie) or the account's own rate refuses it, so that one account over
// its budget does not spend the budget of the others behind its address
// (a household, a cafe). The account is known (non-zero) with every
// ErrTooManyRequests, for the balances of the refusal's reply.
func (a *Area) admitWrite(cookie, addr string) (storage.AccountID, error) {
	key := limit.AddrKey(addr)
	addrOK, _ := a.writesByAddress.Allow(key)
	id, err := a.authenticate(cookie)
	if err != nil {
		if addrOK {
			a.writesByAddress.Refund(key)
		}
		return 0, err
	}
	if !addrOK {
		return id, fmt.Errorf("%w: from address %s", ErrTooManyRequests, key)
	}
	if ok, wait := a.writes.Allow(strconv.FormatUint(uint64(id), 10)); !ok {
		a.writesByAddress.Refund(key)
		return id, fmt.Errorf("%w: of account %d, next in %v", ErrTooManyRequests, id, wait.Round(time.Millisecond))
	}
	return id, nil
}

// withAddress is the Decode of a drop or a purchase: its form, and the
// client's address for admitWrite.
func withAddress[Req any, P interface {
	*Req
	setAddr(string)
}](r *wire.Request) (Req, error) {
	var req Req
	if err := r.Decode(&req); err != nil {
		return req, fmt.Errorf("%w: %w", area.ErrBadRequest, err)
	}
	P(&req).setAddr(r.RemoteIP)
	return req, nil
}

// Routes are the paths the area serves: one table of path, logic, reply
// and failure shape (the status codes of every failure: status.go).
func (a *Area) Routes() []server.Route {
	return []server.Route{
		area.NewRoute(a.replies, area.Route[cookieRequest, boardReply]{Path: PathBoard, Serve: a.board,
			Fail: func(f area.Failure[cookieRequest, boardReply]) any { return boardError{StatusCode: f.Status} },
			Doc: server.Doc{
				Summary: "The Plinko board: tiers of the six slots, costs, balances and each chest's state.",
				Form:    cookieRequest{}, ReplyValue: boardReply{},
				Reply: "Success: `status_code` 1. Failure: `status_code` alone (codes in host/plinko/status.go).",
			}}),
		area.NewRoute(a.replies, area.Route[dropRequest, dropReply]{Path: PathDrop, Decode: withAddress[dropRequest], Serve: a.drop, Fail: dropFail, Doc: server.Doc{
			Summary: "One drop, paid in tickets or gold; the plugin decides the prize.",
			Form:    dropRequest{}, ReplyValue: dropReply{},
			Reply: "Success: `status_code` 1. Failure: the same shape with the error's `status_code` and the account's real balances.",
		}}),
		area.NewRoute(a.replies, area.Route[viewChestRequest, viewChestReply]{Path: PathViewChest, Serve: a.viewChest,
			Fail: func(f area.Failure[viewChestRequest, viewChestReply]) any {
				return viewChestError{StatusCode: f.Status, viewChestReply: f.Rep} // the page's tier and target, when read
			},
			Doc: server.Doc{
				Summary: "A page of up to 56 items of one chest (tier).",
				Form:    viewChestRequest{}, ReplyValue: viewChestReply{},
				Reply: "Success: `status_code` 1. Failure: `status_code` in front of an empty page.",
			}}),
		area.NewRoute(a.replies, area.Route[cookieRequest, exchangeListReply]{Path: PathExchange, Serve: a.exchange,
			Fail: func(f area.Failure[cookieRequest, exchangeListReply]) any {
				return exchangeReply{StatusCode: f.Status, Items: []exchangeItem{}, UserTickets: orZero(f.Rep.UserTickets)}
			},
			Doc: server.Doc{
				Summary: "The ticket exchange's items and the account's tickets.",
				Form:    cookieRequest{}, ReplyValue: exchangeReply{},
				Reply: "Success: `status_code` 51 (an integer). Failure: the same shape with the error's code.",
			}}),
		area.NewRoute(a.replies, area.Route[purchaseRequest, any]{Path: PathPurchase, Decode: withAddress[purchaseRequest], Serve: a.purchase,
			Fail: func(f area.Failure[purchaseRequest, any]) any {
				kept, _ := f.Rep.(purchaseReply) // the account's tickets, when known
				return purchaseReply{StatusCode: f.StatusText(), TicketsRemaining: kept.TicketsRemaining}
			},
			Doc: server.Doc{
				Summary: "Buys one exchange item (grab bags included) with tickets.",
				Form:    purchaseRequest{}, ReplyValue: purchaseReply{},
				Reply: "Success: `status_code` \"51\" (a string); grab bags add `grabBagTheme`, `grabBagIDs`, `grabBagNames`, `grabBagPaths`, `grabBagTypes`. Failure: the same shape with the error's code and balances.",
			}}),
	}
}

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

// orZero is a balance a failure reply keeps: "0" when it is not known.
func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// --- board ---

func (a *Area) board(ctx context.Context, req cookieRequest) (boardReply, error) {
	id, err := a.authenticate(req.Cookie)
	if err != nil {
		return boardReply{}, err
	}
	view, err := a.catalog.get()
	if err != nil {
		return boardReply{}, err
	}
	acct, err := a.balances(ctx, id)
	if err != nil {
		return boardReply{}, err
	}
	amounts := make([]string, len(a.d.Config.Board))
	times := make([]string, len(a.d.Config.Board))
	for i, t := range a.d.Config.Board {
		amounts[i] = strconv.Itoa(len(view.chest(plinkoapi.Tier(t))))
		times[i] = itoa(view.cat.LastUpdate[t-1])
	}
	return boardReply{
		StatusCode: int(StatusOK), Tiers: a.tiers,
		TicketCost: strconv.Itoa(a.d.Config.TicketCost), GoldCost: strconv.Itoa(a.d.Config.GoldCost),
		UserGold: itoa(acct.Gold), Silver: itoa(acct.Silver), UserTickets: itoa(acct.Tickets),
		AmountOfProducts: strings.Join(amounts, ","), LastUpdateTime: strings.Join(times, ","),
	}, nil
}

// --- drop ---

type dropRequest struct {
	Cookie   string `form:"cookie" doc:"session cookie"`
	Currency string `form:"currency" doc:"what pays the drop: tickets or gold"`
	addr     string // the client's address (withAddress)
}

func (r *dropRequest) setAddr(addr string) { r.addr = addr }

// cost returns what one drop costs in currency c.
func (a *Area) cost(c plinkoapi.Currency) int64 {
	if c == plinkoapi.CurrencyGold {
		return int64(a.d.Config.GoldCost)
	}
	return int64(a.d.Config.TicketCost)
}

// drop runs one drop: authenticate and admit it (admitWrite: the address's
// and the account's rates), check the currency, then the whole
// drop (facts, decision, payment, prize, plugin state) in one change in
// the account's actor (see dropChange). Nothing is charged unless the
// change commits. Every refusal of an authenticated account shows its real
// balances (the reply it returns with its error: dropFail).
func (a *Area) drop(ctx context.Context, req dropRequest) (dropReply, error) {
	id, err := a.admitWrite(req.Cookie, req.addr)
	if errors.Is(err, ErrTooManyRequests) {
		return a.dropBalances(ctx, id), err
	}
	if err != nil {
		return dropReply{}, err
	}
	cur := plinkoapi.Currency(req.Currency)
	if !cur.Valid() {
		return a.dropBalances(ctx, id), fmt.Errorf("%w: %q", ErrBadCurrency, req.Currency)
	}
	view, err := a.catalog.get()
	if err != nil {
		return a.dropBalances(ctx, id), err
	}
	out, err := actors.Apply(ctx, a.d.Sys, id, (&dropChange{ctx: ctx, decider: a.d.Decider, view: view, currency: cur, cost: a.cost(cur)}).apply)
	if err != nil {
		var fe *fundsError
		var re *refusal
		switch {
		case errors.As(err, &fe):
			return withBalances(fe.bal), err
		case errors.As(err, &re):
			return withBalances(re.bal), err
		}
		// The change did not apply (a commit refused, a timeout): the
		// balances are the published ones.
		return a.dropBalances(ctx, id), err
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
	return reply, nil
}

// dropBalances is what a refused drop of account id keeps: its balances
// (none, answered as zeros, only when even they cannot be read).
func (a *Area) dropBalances(ctx context.Context, id storage.AccountID) dropReply {
	if bal, err := a.balances(ctx, id); err == nil {
		return withBalances(bal)
	}
	return dropReply{}
}

func withBalances(bal balances) dropReply {
	return dropReply{UserTickets: itoa(bal.Tickets), UserGold: itoa(bal.Gold)}
}

// dropFail answers a failed drop in the drop's shape, with the account's
// balances when known (zeros otherwise).
func dropFail(f area.Failure[dropRequest, dropReply]) any {
	return dropReply{UserTickets: orZero(f.Rep.UserTickets), UserGold: orZero(f.Rep.UserGold), StatusCode: f.StatusText(), RandomTier: "0", ProductID: "-1"}
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

// viewChest answers a page of a chest; a failure echoes the tier and the
// target it read (the reply it returns with its error).
func (a *Area) viewChest(_ context.Context, req viewChestRequest) (viewChestReply, error) {
	tier, terr := strconv.Atoi(req.TierID)
	target, ierr := strconv.Atoi(req.TargetIndex)
	echo := viewChestReply{TierID: tier, TargetIndex: target}
	if _, err := a.authenticate(req.Cookie); err != nil {
		return echo, err
	}
	if terr != nil || ierr != nil || !plinkoapi.Tier(tier).IsChest() {
		return echo, fmt.Errorf("%w: tier_id %q, target_index %q", ErrBadRequest, req.TierID, req.TargetIndex)
	}
	view, err := a.catalog.get()
	if err != nil {
		return echo, err
	}
	chest := view.chest(plinkoapi.Tier(tier))
	if len(chest) == 0 {
		return echo, nil // an empty chest: no items, nothing to contain the target
	}
	if target < 1 || target > len(chest) {
		return echo, fmt.Errorf("%w: target_index %d outside 1..%d", ErrBadRequest, target, len(chest))
	}
	first, n := chestWindow(len(chest), target)
	page := chest[first-1 : first-1+n]
	names, types, paths, ids := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, p := range page {
		names[i], types[i], paths[i], ids[i] = p.Name, p.ShortType, p.LocalPath, itoa(p.ID)
	}
	return viewChestReply{
		TierID: tier, ItemsAmount: n, FirstItemIndex: first, TargetIndex: target,
		ProductNames: strings.Join(names, ","), ProductTypes: strings.Join(types, ","),
		ProductPaths: strings.Join(paths, ","), ProductIDs: strings.Join(ids, ","),
	}, nil
}

// --- ticket exchange ---

// exchange lists the exchange; a failure keeps the account's tickets when
// known (the reply it returns with its error).
func (a *Area) exchange(ctx context.Context, req cookieRequest) (exchangeListReply, error) {
	id, err := a.authenticate(req.Cookie)
	if err != nil {
		return exchangeListReply{}, err
	}
	view, err := a.catalog.get()
	if err != nil {
		if bal, berr := a.balances(ctx, id); berr == nil {
			return exchangeListReply{UserTickets: itoa(bal.Tickets)}, err
		}
		return exchangeListReply{}, err
	}
	acct, err := a.balances(ctx, id)
	if err != nil {
		return exchangeListReply{}, err
	}
	items, err := view.exchangeItems()
	if err != nil {
		return exchangeListReply{UserTickets: itoa(acct.Tickets)}, err
	}
	return exchangeListReply{StatusCode: int(StatusExchangeOK), Items: items, UserTickets: itoa(acct.Tickets)}, nil
}

type purchaseRequest struct {
	Cookie string `form:"cookie" doc:"session cookie"`
	ID     string `form:"id" doc:"product id of the item"`
	addr   string // the client's address (withAddress)
}

func (r *purchaseRequest) setAddr(addr string) { r.addr = addr }

// purchase buys one item, once admitted (admitWrite, as a drop). Its
// reply is a purchaseReply, or a grabBagReply for a grab bag; a failure
// returns the purchaseReply that keeps the account's tickets, when known.
func (a *Area) purchase(ctx context.Context, req purchaseRequest) (any, error) {
	id, err := a.admitWrite(req.Cookie, req.addr)
	if errors.Is(err, ErrTooManyRequests) {
		return a.ticketsOf(ctx, id), err
	}
	if err != nil {
		return nil, err
	}
	pid, err := strconv.ParseInt(req.ID, 10, 64)
	if err != nil {
		return a.ticketsOf(ctx, id), fmt.Errorf("%w: id %q", ErrBadRequest, req.ID)
	}
	view, err := a.catalog.get()
	if err != nil {
		return a.ticketsOf(ctx, id), err
	}
	i, ok := view.exchange[pid]
	if !ok {
		return a.ticketsOf(ctx, id), fmt.Errorf("%w: product %d", ErrUnknownItem, pid)
	}
	item := view.cat.Exchange[i]
	out, err := actors.Apply(ctx, a.d.Sys, id, (&purchaseChange{item: item}).apply)
	if err != nil {
		var fe *fundsError
		var oe *ownedError
		switch {
		case errors.As(err, &fe):
			return purchaseReply{TicketsRemaining: fe.bal.Tickets}, err
		case errors.As(err, &oe):
			return purchaseReply{TicketsRemaining: oe.bal.Tickets}, err
		}
		// Not applied (a commit refused, a timeout): the published tickets.
		return a.ticketsOf(ctx, id), err
	}
	ok51 := purchaseReply{StatusCode: StatusExchangeOK.String(), TicketsRemaining: out.After.Tickets, GrabBag: item.GrabBag != nil}
	if item.GrabBag == nil {
		return ok51, nil
	}
	bag := item.GrabBag
	n := len(bag.Products)
	ids, names, paths, types := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, p := range bag.Products {
		ids[i], names[i], paths[i], types[i] = itoa(p.ID), p.Name, p.LocalPath, p.Type
	}
	return grabBagReply{purchaseReply: ok51, Theme: bag.Theme,
		IDs: strings.Join(ids, "|"), Names: strings.Join(names, "|"), Paths: strings.Join(paths, "|"), Types: strings.Join(types, "|")}, nil
}

// ticketsOf is what a failed purchase of account id keeps: its current
// tickets (0 when they cannot be read).
func (a *Area) ticketsOf(ctx context.Context, id storage.AccountID) purchaseReply {
	if acct, err := a.balances(ctx, id); err == nil {
		return purchaseReply{TicketsRemaining: acct.Tickets}
	}
	return purchaseReply{}
}
