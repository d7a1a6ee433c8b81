package plinko

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

func testView(t *testing.T) *catalogView {
	t.Helper()
	f, err := os.Open("testdata/catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := ParseCatalog(f, time.Unix(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	return newView(0, c)
}

func newAccount(t *testing.T, sys *actors.System, login string, a storage.Account) storage.AccountID {
	t.Helper()
	acct, err := sys.CreateAccount(context.Background(), &actors.NewAccount{Login: login, Account: a})
	if err != nil {
		t.Fatal(err)
	}
	return acct.ID
}

func upgradeIDs(a *storage.Account) []string {
	var out []string
	for _, u := range a.Upgrades {
		out = append(out, u.ID)
	}
	return out
}

func TestDropFacts(t *testing.T) {
	v := testView(t)
	a := &storage.Account{ID: 9, Upgrades: []storage.Upgrade{{ID: "aa.Hero_Tidecaller.Alt1"}, {ID: "x.Other"}, {ID: "aa.Hero_Pyromancer.Alt1"}}}
	got := dropFacts(a, v, plinkoapi.CurrencyGold)
	want := plinkoapi.DropFacts{AccountID: 9, Currency: plinkoapi.CurrencyGold, Unowned: [4]int{1, 2, 1, 0}}
	if got != want {
		t.Fatalf("facts = %+v, want %+v", got, want)
	}
}

func TestDropChange(t *testing.T) {
	const cost = 66
	chest := func(t plinkoapi.Tier, i int) plinkoapi.DropDecision {
		return plinkoapi.DropDecision{Tier: t, PrizeIndex: i}
	}
	tests := []struct {
		name      string
		start     storage.Account
		currency  plinkoapi.Currency
		decision  plinkoapi.DropDecision
		wantErr   error
		tickets   int64 // after
		gold      int64
		prize     string // upgrade granted, "" for none
		exhausted bool
	}{
		{"60 tickets", storage.Account{Tickets: 100}, plinkoapi.CurrencyTickets,
			plinkoapi.DropDecision{Tier: plinkoapi.TierTickets60, PrizeIndex: -1, Tickets: 60}, nil, 94, 0, "", false},
		{"30 tickets paid with gold", storage.Account{Tickets: 5, Gold: 100}, plinkoapi.CurrencyGold,
			plinkoapi.DropDecision{Tier: plinkoapi.TierTickets30, PrizeIndex: -1, Tickets: 30}, nil, 35, 100 - cost, "", false},
		{"silver prize 1", storage.Account{Tickets: 66}, plinkoapi.CurrencyTickets, chest(plinkoapi.TierSilver, 1), nil, 0, 0, "aa.Hero_Ironbark.Alt1", false},
		{"index counts unowned only", storage.Account{Tickets: 66, Upgrades: []storage.Upgrade{{ID: "aa.Hero_Tidecaller.Alt1"}}},
			plinkoapi.CurrencyTickets, chest(plinkoapi.TierSilver, 0), nil, 0, 0, "aa.Hero_Ironbark.Alt1", false},
		{"index beyond the unowned prizes is refused, never re-mapped", storage.Account{Tickets: 66, Upgrades: []storage.Upgrade{{ID: "aa.Hero_Ironbark.Alt1"}}},
			plinkoapi.CurrencyTickets, chest(plinkoapi.TierSilver, 1), sdk.ErrInvalidDecision, 66, 0, "", false},
		{"prize of an exhausted chest is refused", storage.Account{Tickets: 66, Upgrades: []storage.Upgrade{{ID: "aa.Hero_Stormherald.Alt1"}}},
			plinkoapi.CurrencyTickets, chest(plinkoapi.TierDiamond, 0), sdk.ErrInvalidDecision, 66, 0, "", false},
		{"exhausted diamond pays tickets", storage.Account{Tickets: 66, Upgrades: []storage.Upgrade{{ID: "aa.Hero_Stormherald.Alt1"}}},
			plinkoapi.CurrencyTickets, plinkoapi.DropDecision{Tier: plinkoapi.TierDiamond, PrizeIndex: -1, Tickets: 350, Exhausted: true}, nil, 350, 0, "", true},
		{"exhausted decision", storage.Account{Tickets: 70, Upgrades: []storage.Upgrade{{ID: "aa.Hero_Pyromancer.Alt1"}}},
			plinkoapi.CurrencyTickets, plinkoapi.DropDecision{Tier: plinkoapi.TierBronze, PrizeIndex: -1, Tickets: 80, Exhausted: true}, nil, 84, 0, "", true},
		{"insufficient tickets", storage.Account{Tickets: 65, Gold: 1000}, plinkoapi.CurrencyTickets, chest(plinkoapi.TierGold, 0), ErrInsufficientFunds, 65, 1000, "", false},
		{"insufficient gold", storage.Account{Tickets: 1000, Gold: 10}, plinkoapi.CurrencyGold,
			plinkoapi.DropDecision{Tier: plinkoapi.TierTickets60, PrizeIndex: -1, Tickets: 60}, ErrInsufficientFunds, 1000, 10, "", false},
		{"invalid tier", storage.Account{Tickets: 100}, plinkoapi.CurrencyTickets, plinkoapi.DropDecision{Tier: 9}, sdk.ErrInvalidDecision, 100, 0, "", false},
		// A payout that would take tickets past math.MaxInt64 (a grant
		// allows balances up to it) is refused, not wrapped round.
		{"tickets at the maximum, paid with gold", storage.Account{Tickets: math.MaxInt64, Gold: 1000}, plinkoapi.CurrencyGold,
			plinkoapi.DropDecision{Tier: plinkoapi.TierTickets30, PrizeIndex: -1, Tickets: 30}, ErrBalanceFull, math.MaxInt64, 1000, "", false},
		{"tickets near the maximum, payout above the cost", storage.Account{Tickets: math.MaxInt64, Upgrades: []storage.Upgrade{{ID: "aa.Hero_Stormherald.Alt1"}}},
			plinkoapi.CurrencyTickets, plinkoapi.DropDecision{Tier: plinkoapi.TierDiamond, PrizeIndex: -1, Tickets: 350, Exhausted: true}, ErrBalanceFull, math.MaxInt64, 0, "", false},
		{"payout reaching the maximum exactly", storage.Account{Tickets: math.MaxInt64 - 30, Gold: 100}, plinkoapi.CurrencyGold,
			plinkoapi.DropDecision{Tier: plinkoapi.TierTickets30, PrizeIndex: -1, Tickets: 30}, nil, math.MaxInt64, 100 - cost, "", false},
		{"tickets at the maximum, payout below the cost", storage.Account{Tickets: math.MaxInt64}, plinkoapi.CurrencyTickets,
			plinkoapi.DropDecision{Tier: plinkoapi.TierTickets60, PrizeIndex: -1, Tickets: 60}, nil, math.MaxInt64 - 6, 0, "", false},
		{"tickets at the maximum, prize paid with gold", storage.Account{Tickets: math.MaxInt64, Gold: 100}, plinkoapi.CurrencyGold,
			chest(plinkoapi.TierSilver, 0), nil, math.MaxInt64, 100 - cost, "aa.Hero_Tidecaller.Alt1", false},
	}
	sys := actorstest.New(t)
	v := testView(t)
	ctx := context.Background()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := newAccount(t, sys, "acct"+string(rune('a'+i)), tt.start)
			before, _ := sys.DB().Account(id)
			decider := sdk.Mock(plinkoapi.Drop, func(_ context.Context, c sdk.Call[plinkoapi.DropFacts]) (sdk.Result[plinkoapi.DropDecision], error) {
				return sdk.Result[plinkoapi.DropDecision]{Decision: tt.decision, State: append(c.State, 'x')}, nil
			})
			r, err := actors.Apply(ctx, sys, id, (&dropChange{ctx: ctx, decider: decider, view: v, currency: tt.currency, cost: cost}).apply)
			state, serr := sys.DB().PluginState(id, string(plinkoapi.Area))
			if serr != nil {
				t.Fatal(serr)
			}
			after, _ := sys.Account(ctx, id)
			stored, _ := sys.DB().Account(id)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				// Refused: nothing written, nothing adopted.
				if state != nil {
					t.Errorf("refused change stored plugin state %q", state)
				}
				if !slices.Equal(upgradeIDs(stored), upgradeIDs(before)) || stored.Tickets != before.Tickets || stored.Gold != before.Gold ||
					after.Tickets != before.Tickets || after.Gold != before.Gold {
					t.Fatalf("refused change wrote: before %+v, stored %+v, actor %+v", before, stored, after)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(state) != "x" {
				t.Errorf("plugin state stored = %q, want %q", state, "x")
			}
			if after.Tickets != tt.tickets || after.Gold != tt.gold || r.After.Tickets != tt.tickets || r.After.Gold != tt.gold {
				t.Errorf("balances actor %d/%d reply %d/%d, want %d/%d", after.Tickets, after.Gold, r.After.Tickets, r.After.Gold, tt.tickets, tt.gold)
			}
			if stored.Tickets != after.Tickets || stored.Gold != after.Gold {
				t.Errorf("stored %d/%d differs from actor %d/%d", stored.Tickets, stored.Gold, after.Tickets, after.Gold)
			}
			if r.Exhausted != tt.exhausted {
				t.Errorf("exhausted = %v", r.Exhausted)
			}
			newUps := upgradeIDs(after)[len(before.Upgrades):]
			switch {
			case tt.prize == "" && (r.Prize != nil || len(newUps) != 0):
				t.Errorf("granted %v (%v), want nothing", newUps, r.Prize)
			case tt.prize != "" && (r.Prize == nil || r.Prize.Upgrade != tt.prize || !slices.Equal(newUps, []string{tt.prize})):
				t.Errorf("granted %v (%+v), want %s", newUps, r.Prize, tt.prize)
			}
		})
	}
}

func TestPurchaseChange(t *testing.T) {
	v := testView(t)
	item := func(pid int64) ExchangeItem { return v.cat.Exchange[v.exchange[pid]] }
	tests := []struct {
		name    string
		start   storage.Account
		pid     int64
		wantErr error
		tickets int64
		granted []string
	}{
		{"taunt", storage.Account{Tickets: 1300}, 501, nil, 0, []string{"t.Super"}},
		{"grab bag", storage.Account{Tickets: 2000}, 601, nil, 500, []string{"aa.Hero_Frostwarden.Alt2", "c.Golden"}},
		{"grab bag owned in part", storage.Account{Tickets: 1500, Upgrades: []storage.Upgrade{{ID: "c.Golden"}}}, 601, nil, 0, []string{"aa.Hero_Frostwarden.Alt2"}},
		{"owned", storage.Account{Tickets: 5000, Upgrades: []storage.Upgrade{{ID: "aa.Hero_Ironbark.Alt1"}}}, 302, ErrAlreadyOwned, 5000, nil},
		{"grab bag owned", storage.Account{Tickets: 5000, Upgrades: []storage.Upgrade{{ID: "c.Golden"}, {ID: "aa.Hero_Frostwarden.Alt2"}}}, 601, ErrAlreadyOwned, 5000, nil},
		{"insufficient", storage.Account{Tickets: 699}, 302, ErrInsufficientFunds, 699, nil},
	}
	sys := actorstest.New(t)
	ctx := context.Background()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := newAccount(t, sys, "buyer"+string(rune('a'+i)), tt.start)
			res, err := actors.Apply(ctx, sys, id, (&purchaseChange{item: item(tt.pid)}).apply)
			after, _ := sys.Account(ctx, id)
			stored, _ := sys.DB().Account(id)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if after.Tickets != tt.tickets || stored.Tickets != tt.tickets {
				t.Errorf("tickets actor %d stored %d, want %d", after.Tickets, stored.Tickets, tt.tickets)
			}
			newUps := upgradeIDs(stored)[len(tt.start.Upgrades):]
			if !slices.Equal(newUps, tt.granted) {
				t.Errorf("granted %v, want %v", newUps, tt.granted)
			}
			if err == nil && !slices.Equal(res.Granted, tt.granted) {
				t.Errorf("reply granted %v", res.Granted)
			}
		})
	}
}

func TestChestWindow(t *testing.T) {
	tests := []struct{ total, target, first, n int }{
		{772, 769, 741, 32}, // recorded: Silver chest "page 193"
		{772, 1, 1, 56},     // recorded: Silver chest "page 1"
		{10, 5, 1, 10},
		{100, 60, 32, 56},
		{100, 100, 72, 29},
		{56, 56, 28, 29},
		{1, 1, 1, 1},
	}
	for _, tt := range tests {
		first, n := chestWindow(tt.total, tt.target)
		if first != tt.first || n != tt.n {
			t.Errorf("chestWindow(%d, %d) = %d, %d; want %d, %d", tt.total, tt.target, first, n, tt.first, tt.n)
		}
		if tt.target < first || tt.target >= first+n || n > ChestPage {
			t.Errorf("chestWindow(%d, %d): page %d+%d does not hold the target", tt.total, tt.target, first, n)
		}
	}
}

func TestStatusOf(t *testing.T) {
	tests := []struct {
		err  error
		want Status
	}{
		{&fundsError{}, StatusInsufficientFunds},
		{&ownedError{}, StatusAlreadyOwned},
		{&refusal{err: fmt.Errorf("%w: x", ErrBalanceFull)}, StatusInsufficientFunds},
		{sdk.ErrUnavailable, StatusDeciderUnavailable},
		{errors.Join(errors.New("supervisor"), sdk.ErrInvalidDecision), StatusDeciderUnavailable},
		{ErrBadCurrency, StatusBadCurrency},
		{actors.ErrTimeout, StatusOutcomeUnknown},
		{fmt.Errorf("x: %w", storage.ErrCommitUncertain), StatusOutcomeUnknown},
		{fmt.Errorf("x: %w", storage.ErrDiskFull), StatusStorageFull},
		{errors.New("disk on fire"), StatusInternal},
		// Rows of the shared causes (area.CauseOf) the table had too.
		{login.ErrInvalidCookie, StatusBadCookie},
		{actors.ErrNoAccount, StatusBadCookie},
		{fmt.Errorf("%w: form", ErrBadRequest), StatusBadRequest},
		{storage.ErrEngineFailed, StatusStorageFull},
		{sdk.ErrInvalidFacts, StatusDeciderUnavailable},
		{context.DeadlineExceeded, StatusInternal},
		{storage.ErrFenced, StatusInternal}, // no "try again" code in the client's vocabulary
		// Outcome unknown wins over the area's own reasons.
		{errors.Join(ErrAlreadyOwned, actors.ErrTimeout), StatusOutcomeUnknown},
	}
	for _, tt := range tests {
		if got := statusOf(tt.err); got != tt.want {
			t.Errorf("statusOf(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
