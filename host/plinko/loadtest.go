package plinko

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"

	"github.com/honmaster/masterserver/host/loadtest"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/wire"
)

// The area's load-test operations ("honmaster loadtest --mix drop=3,...").
// Drops and purchases spend the tickets and gold the run grants each
// account; the run's end-of-run check compares every account's balances
// with what the replies said (loadtest.Account's bookkeeping).
func init() {
	loadtest.RegisterArea(loadtest.Area{Name: areaName, Provision: loadProvision, Operations: []loadtest.Operation{
		{Name: "board", Requests: 1, Reads: true, Do: loadBoard,
			Doc: "the Plinko board; balances must match the replies so far"},
		{Name: "drop", Requests: 1, Do: loadDrop, NeedsOperator: "granting tickets and gold", Spends: true, DefaultWeight: 3,
			Doc: "one Plinko drop (every fourth in gold); user_tickets must equal the balance before - cost + what it paid (ticket_amount, or an exhausted chest's tickets)"},
		{Name: "chest", Requests: 1, Reads: true, Do: loadChest,
			Doc: "viewchest of a random chest"},
		{Name: "exchange", Requests: 1, Reads: true, Do: loadExchange,
			Doc: "the ticket exchange list; user_tickets must match"},
		{Name: "purchase", Requests: 1, Do: loadPurchase, NeedsOperator: "granting tickets", Spends: true,
			Fallback: &loadtest.Fallback{Row: loadPurchaseListed, As: "exchange", Why: "nothing left to buy: read the exchange list instead"},
			Doc: "buys an exchange item the account does not own; tickets_remaining must equal the balance before - cost " +
				"(with nothing left to buy it reads the list instead, counted as " + loadPurchaseListed + ")"},
	}})
}

// loadPurchaseListed is the fallback row of a purchase that found nothing
// left to buy and read the exchange list instead.
const loadPurchaseListed = "purchase>exchange"

// loadRun is what the area's operations share over a run, read at
// provisioning.
type loadRun struct {
	ticketCost, goldCost int64
	exchange             []loadItem
}

type loadItem struct {
	productID string
	cost      int64
}

// loadAccount is what the replies said about an account of the run.
type loadAccount struct {
	drops int
	owned map[string]bool // product ids the account owns
}

func loadRunOf(e *loadtest.Env) *loadRun {
	return loadtest.RunState(e, areaName, func() *loadRun { return &loadRun{} })
}

func loadAccountOf(a *loadtest.Account) *loadAccount {
	return loadtest.AccountState(a, areaName, func() *loadAccount { return &loadAccount{owned: map[string]bool{}} })
}

// loadProvision reads the drop costs from the board, and the exchange's
// items for purchases.
func loadProvision(ctx context.Context, e *loadtest.Env) error {
	r := loadRunOf(e)
	cookie := e.Accounts()[0].Cookie()
	if e.InMix("drop", "board") {
		arr, err := e.Post(ctx, PathBoard, url.Values{"cookie": {cookie}}, 200)
		if err != nil {
			return fmt.Errorf("board: %w", err)
		}
		r.ticketCost, _ = loadIntText(arr, "ticket_cost")
		r.goldCost, _ = loadIntText(arr, "gold_cost")
	}
	if e.InMix("purchase") {
		var err error
		if r.exchange, err = loadExchangeList(ctx, e, cookie); err != nil {
			return fmt.Errorf("exchange list: %w", err)
		}
	}
	return nil
}

// loadIntText reads an integer sent as text or as an integer.
func loadIntText(arr *wire.Array, key string) (int64, bool) {
	if n, ok := arr.Int(key); ok {
		return n, true
	}
	s, ok := arr.String(key)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// loadStatus checks a Plinko reply's status_code.
func loadStatus(arr *wire.Array, want int64) error {
	code, ok := loadIntText(arr, "status_code")
	if !ok {
		return loadtest.Fail("decode", "no status_code")
	}
	if code == int64(StatusTooManyRequests) {
		return loadtest.Fail("refused:"+strconv.FormatInt(code, 10), "status_code %d: past the server's drops and purchases "+
			"per account or per address; for a load test turn them off ([plinko] write_burst = 0, as bench/loadtest.toml)", code)
	}
	if code != want {
		return loadtest.Fail("refused:"+strconv.FormatInt(code, 10), "status_code %d", code)
	}
	return nil
}

func loadBoard(ctx context.Context, e *loadtest.Env, a *loadtest.Account, _ *rand.Rand) error {
	arr, err := e.Post(ctx, PathBoard, url.Values{"cookie": {a.Cookie()}}, 200)
	if err != nil {
		return err
	}
	if err := loadStatus(arr, 1); err != nil {
		return err
	}
	t, _ := loadIntText(arr, "user_tickets")
	g, _ := loadIntText(arr, "user_gold")
	return a.CheckBalances("board", t, g)
}

func loadDrop(ctx context.Context, e *loadtest.Env, a *loadtest.Account, _ *rand.Rand) error {
	r, s := loadRunOf(e), loadAccountOf(a)
	currency, cost := "tickets", r.ticketCost
	if s.drops%4 == 3 && a.Gold() >= r.goldCost {
		currency, cost = "gold", r.goldCost
	}
	s.drops++
	arr, err := e.Post(ctx, PathDrop, url.Values{"cookie": {a.Cookie()}, "currency": {currency}}, 200)
	if err == nil {
		err = loadStatus(arr, 1)
	}
	if loadUnknown(err) { // it may have charged the cost and paid a tier
		u := loadtest.Unknown{Tickets: loadPayouts(-cost)}
		if currency == "gold" {
			u = loadtest.Unknown{Tickets: loadPayouts(0), Gold: -cost}
		}
		a.Unknown(u)
	}
	if err != nil {
		return err // a drop refused otherwise charged nothing
	}
	won, ok := arr.Int("ticket_amount")
	if !ok {
		return loadtest.Fail("decode", "drop without ticket_amount")
	}
	// An exhausted chest answers ticket_amount 0 (the specification's
	// shape) and pays its tier's tickets into the balance.
	if exhausted, _ := arr.Bool("products_exhausted"); exhausted {
		tier, _ := loadIntText(arr, "random_tier")
		won = int64(plinkoapi.Tier(tier).Tickets())
	}
	t, _ := loadIntText(arr, "user_tickets")
	g, _ := loadIntText(arr, "user_gold")
	if currency == "gold" {
		a.Spend(0, cost)
	} else {
		a.Spend(cost, 0)
	}
	a.Win(won)
	if pid, _ := arr.String("product_id"); pid != "" && pid != "-1" {
		s.owned[pid] = true
	}
	return a.CheckBalances("drop", t, g)
}

// loadUnknown reports whether a drop's or a purchase's error leaves its
// outcome unknown: no reply, or the area's "outcome unknown" status.
func loadUnknown(err error) bool {
	return err != nil && (loadtest.NoReply(err) || loadtest.Kind(err) == "refused:"+StatusOutcomeUnknown.String())
}

// loadPayouts are the changes of tickets a drop that happened may have
// made: plus, its cost, one of the payouts (nothing, or a tier's tickets).
func loadPayouts(plus int64) []int64 {
	out := []int64{plus}
	for tier := plinkoapi.Tier(1); tier <= plinkoapi.NumTiers; tier++ {
		out = append(out, plus+int64(tier.Tickets()))
	}
	return out
}

func loadChest(ctx context.Context, e *loadtest.Env, a *loadtest.Account, rng *rand.Rand) error {
	arr, err := e.Post(ctx, PathViewChest, url.Values{"cookie": {a.Cookie()},
		"tier_id": {strconv.Itoa(1 + rng.IntN(4))}, "target_index": {"1"}}, 200)
	if err != nil {
		return err
	}
	if code, ok := loadIntText(arr, "status_code"); ok {
		return loadtest.Fail("refused:"+strconv.FormatInt(code, 10), "viewchest status_code %d", code)
	}
	if _, ok := arr.Int("items_amount"); !ok {
		return loadtest.Fail("decode", "viewchest without items_amount")
	}
	return nil
}

func loadExchange(ctx context.Context, e *loadtest.Env, a *loadtest.Account, _ *rand.Rand) error {
	arr, err := e.Post(ctx, PathExchange, url.Values{"cookie": {a.Cookie()}}, 200)
	if err != nil {
		return err
	}
	if err := loadStatus(arr, 51); err != nil {
		return err
	}
	t, _ := loadIntText(arr, "user_tickets")
	return a.CheckTickets("exchange user_tickets", t)
}

// loadExchangeList reads the exchange's items (at provisioning).
func loadExchangeList(ctx context.Context, e *loadtest.Env, cookie string) ([]loadItem, error) {
	arr, err := e.Post(ctx, PathExchange, url.Values{"cookie": {cookie}}, 200)
	if err != nil {
		return nil, err
	}
	if err := loadStatus(arr, 51); err != nil {
		return nil, err
	}
	items, _ := arr.Array("items")
	var out []loadItem
	if items == nil {
		return nil, nil
	}
	for _, v := range items.All() {
		it, ok := v.(*wire.Array)
		if !ok {
			continue
		}
		pid, _ := it.String("product_id")
		cost, ok := loadIntText(it, "cost")
		if pid != "" && ok {
			out = append(out, loadItem{productID: pid, cost: cost})
		}
	}
	return out, nil
}

func loadPurchase(ctx context.Context, e *loadtest.Env, a *loadtest.Account, rng *rand.Rand) error {
	s := loadAccountOf(a)
	var choices []loadItem
	for _, it := range loadRunOf(e).exchange {
		if !s.owned[it.productID] && it.cost <= a.Tickets() {
			choices = append(choices, it)
		}
	}
	if len(choices) == 0 {
		return e.Fallback(ctx, a, rng) // everything owned: look at the list instead
	}
	it := choices[rng.IntN(len(choices))]
	arr, err := e.Post(ctx, PathPurchase, url.Values{"cookie": {a.Cookie()}, "id": {it.productID}}, 200)
	if err != nil {
		if loadtest.NoReply(err) {
			a.Unknown(loadtest.Unknown{Tickets: []int64{-it.cost}})
		}
		return err
	}
	if err := loadStatus(arr, 51); err != nil {
		if loadUnknown(err) {
			a.Unknown(loadtest.Unknown{Tickets: []int64{-it.cost}})
		}
		if code, _ := loadIntText(arr, "status_code"); code == 10 {
			s.owned[it.productID] = true // owned through a grab bag or drop we did not see
		}
		return err
	}
	a.Spend(it.cost, 0)
	s.owned[it.productID] = true
	if ids, ok := arr.String("grabBagIDs"); ok {
		for _, id := range strings.Split(ids, "|") {
			s.owned[id] = true
		}
	}
	left, ok := arr.Int("tickets_remaining")
	if !ok {
		return loadtest.Fail("decode", "purchase without tickets_remaining")
	}
	return a.CheckTickets("purchase tickets_remaining", left)
}
