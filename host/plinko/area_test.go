package plinko_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/honmaster/masterserver/host/plinko"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

const catalogFile = "testdata/catalog.json"

// switchable is a decider whose behaviour a test swaps between calls.
type switchable struct {
	cur atomic.Pointer[sdk.Plugin]
}

func (s *switchable) Decide(ctx context.Context, decision string, facts, state []byte) (sdk.RawResult, error) {
	return s.cur.Load().Decide(ctx, decision, facts, state)
}

func TestBoard(t *testing.T) {
	dec := &switchable{}
	dec.cur.Store(forced(plinkoapi.TierTickets30))
	ms := newMockServer(t, dec, catalogFile)
	_, cookie := player(t, ms.app, ms.c, "boarder", 1085, 4252)
	a := post(t, ms.c, plinko.PathBoard, cookie)
	checkShape(t, a, boardShape)
	tiers, _ := a.Array("tiers")
	var got []string
	for _, v := range tiers.All() {
		got = append(got, v.(string))
	}
	if !slices.Equal(got, []string{"5", "3", "4", "1", "6", "2"}) {
		t.Errorf("tiers %v", got)
	}
	want := map[string]string{"ticket_cost": "66", "gold_cost": "54", "user_gold": "4252", "silver": "7", "user_tickets": "1085",
		// board 5,3,4,1,6,2; chests diamond 1, gold 2, silver 2, bronze 1
		"amount_of_products": "0,2,1,1,0,2",
		"last_update_time":   "1700000000,1700000000,1700000000,1700000001,1700000000,1700000000"}
	for k, w := range want {
		if g := str(a, k); g != w {
			t.Errorf("%s = %q, want %q", k, g, w)
		}
	}
	if num(a, "status_code") != 1 {
		t.Errorf("status %d", num(a, "status_code"))
	}
}

// TestDropForcedTiers drives each kind of outcome through HTTP with a
// decider that forces the tier.
func TestDropForcedTiers(t *testing.T) {
	dec := &switchable{}
	ms := newMockServer(t, dec, catalogFile)
	id, cookie := player(t, ms.app, ms.c, "dropper", 1000, 500, "aa.Hero_Pyromancer.Alt1") // owns all of Bronze
	tickets, gold := int64(1000), int64(500)
	tests := []struct {
		tier      plinkoapi.Tier
		currency  string
		product   string // product_id
		name      string
		ticketAmt int64
		exhausted bool
	}{
		{plinkoapi.TierTickets60, "tickets", "-1", "Ticket", 60, false},
		{plinkoapi.TierTickets30, "gold", "-1", "Ticket", 30, false},
		{plinkoapi.TierSilver, "tickets", "301", "Hero_Tidecaller.Alt1", 0, false},
		{plinkoapi.TierSilver, "gold", "302", "Hero_Ironbark.Alt1", 0, false},
		{plinkoapi.TierSilver, "tickets", "-1", "Ticket", 100, true}, // all silver owned now
		{plinkoapi.TierBronze, "tickets", "-1", "Ticket", 80, true},  // owned from the start
		{plinkoapi.TierDiamond, "gold", "101", "Hero_Stormherald.Alt1", 0, false},
		{plinkoapi.TierDiamond, "tickets", "-1", "Ticket", 350, true},
		{plinkoapi.TierGold, "tickets", "201", "Hero_Emberwitch.Alt1", 0, false},
		{plinkoapi.TierGold, "tickets", "202", "Thunder Announcer", 0, false},
		{plinkoapi.TierGold, "gold", "-1", "Ticket", 225, true},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%d_%s_%s", i, tt.tier, tt.currency), func(t *testing.T) {
			dec.cur.Store(forced(tt.tier))
			a := post(t, ms.c, plinko.PathDrop, cookie, "currency", tt.currency)
			checkShape(t, a, dropShape)
			if tt.currency == "gold" {
				gold -= 54
			} else {
				tickets -= 66
			}
			tickets += tt.ticketAmt
			got := fmt.Sprint(str(a, "status_code"), str(a, "random_tier"), str(a, "product_id"), str(a, "product_name"), num(a, "ticket_amount"))
			wireAmt := tt.ticketAmt
			if tt.exhausted {
				wireAmt = 0 // the spec: an exhausted chest answers 0; the balance shows the payout
			}
			want := fmt.Sprint("1", int(tt.tier), tt.product, tt.name, wireAmt)
			if got != want {
				t.Errorf("reply %s, want %s", got, want)
			}
			if ex, _ := a.Bool("products_exhausted"); ex != tt.exhausted {
				t.Errorf("products_exhausted = %v", ex)
			}
			if str(a, "user_tickets") != fmt.Sprint(tickets) || str(a, "user_gold") != fmt.Sprint(gold) {
				t.Errorf("balances %s/%s, want %d/%d", str(a, "user_tickets"), str(a, "user_gold"), tickets, gold)
			}
			if tt.product == "-1" && (str(a, "product_type") != "Ticket" || str(a, "product_path") != "Ticket") {
				t.Errorf("ticket reply %v", a)
			}
		})
	}
	acct, err := ms.app.Sys.Account(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var ups []string
	for _, u := range acct.Upgrades {
		ups = append(ups, u.ID)
	}
	want := []string{"aa.Hero_Pyromancer.Alt1", "aa.Hero_Tidecaller.Alt1", "aa.Hero_Ironbark.Alt1", "aa.Hero_Stormherald.Alt1", "aa.Hero_Emberwitch.Alt1", "av.Thunder"}
	if !slices.Equal(ups, want) || acct.Tickets != tickets || acct.Gold != gold {
		t.Errorf("account %v %d/%d, want %v %d/%d", ups, acct.Tickets, acct.Gold, want, tickets, gold)
	}
	// A later login lists the prizes in my_upgrades.
	s, err := ms.c.Login(context.Background(), "dropper", "pw-dropper")
	if err != nil {
		t.Fatal(err)
	}
	my, _ := s.Record.Array("my_upgrades")
	var listed []string
	for _, v := range my.All() {
		listed = append(listed, v.(string))
	}
	if !slices.Equal(listed, want) {
		t.Errorf("my_upgrades %v, want %v", listed, want)
	}
}

// TestErrors covers every refusal: status, shape, HTTP 200, nothing changed.
func TestErrors(t *testing.T) {
	dec := &switchable{}
	dec.cur.Store(forced(plinkoapi.TierSilver))
	ms := newMockServer(t, dec, catalogFile)
	_, cookie := player(t, ms.app, ms.c, "victim", 100, 20, "aa.Hero_Ironbark.Alt1")
	_, poorCookie := player(t, ms.app, ms.c, "pauper", 65, 53)
	bad := strings.Repeat("ab", 16)
	unavailable := sdk.Mock(plinkoapi.Drop, func(context.Context, sdk.Call[plinkoapi.DropFacts]) (sdk.Result[plinkoapi.DropDecision], error) {
		return sdk.Result[plinkoapi.DropDecision]{}, fmt.Errorf("supervisor: %w", sdk.ErrUnavailable)
	})
	invalid := sdk.Mock(plinkoapi.Drop, func(context.Context, sdk.Call[plinkoapi.DropFacts]) (sdk.Result[plinkoapi.DropDecision], error) {
		return sdk.Result[plinkoapi.DropDecision]{Decision: plinkoapi.DropDecision{Tier: plinkoapi.TierSilver, PrizeIndex: 7}}, nil // only 1 unowned silver prize
	})
	tests := []struct {
		name    string
		decider *sdk.Plugin
		path    string
		cookie  string
		kv      []string
		shape   []entry
		status  string
	}{
		{"board bad cookie", nil, plinko.PathBoard, bad, nil, []entry{{"status_code", "int"}}, "2"},
		{"board no cookie", nil, plinko.PathBoard, "", nil, []entry{{"status_code", "int"}}, "2"},
		{"drop bad cookie", nil, plinko.PathDrop, bad, []string{"currency", "tickets"}, dropShape, "2"},
		{"drop bad currency", nil, plinko.PathDrop, cookie, []string{"currency", "silver"}, dropShape, "4"},
		{"drop no currency", nil, plinko.PathDrop, cookie, nil, dropShape, "4"},
		{"drop insufficient tickets", nil, plinko.PathDrop, poorCookie, []string{"currency", "tickets"}, dropShape, "3"},
		{"drop insufficient gold", nil, plinko.PathDrop, poorCookie, []string{"currency", "gold"}, dropShape, "3"},
		{"drop plugin unavailable", unavailable, plinko.PathDrop, cookie, []string{"currency", "tickets"}, dropShape, "5"},
		{"drop invalid decision", invalid, plinko.PathDrop, cookie, []string{"currency", "tickets"}, dropShape, "5"},
		{"viewchest bad cookie", nil, plinko.PathViewChest, bad, []string{"tier_id", "1", "target_index", "1"}, viewErrorShape, "2"},
		{"viewchest tier 5", nil, plinko.PathViewChest, cookie, []string{"tier_id", "5", "target_index", "1"}, viewErrorShape, "6"},
		{"viewchest tier text", nil, plinko.PathViewChest, cookie, []string{"tier_id", "x", "target_index", "1"}, viewErrorShape, "6"},
		{"viewchest target 0", nil, plinko.PathViewChest, cookie, []string{"tier_id", "3", "target_index", "0"}, viewErrorShape, "6"},
		{"viewchest target past end", nil, plinko.PathViewChest, cookie, []string{"tier_id", "3", "target_index", "3"}, viewErrorShape, "6"},
		{"exchange bad cookie", nil, plinko.PathExchange, bad, nil, exchangeShape, "2"},
		{"purchase bad cookie", nil, plinko.PathPurchase, bad, []string{"id", "501"}, purchaseShape, "2"},
		{"purchase no id", nil, plinko.PathPurchase, cookie, nil, purchaseShape, "6"},
		{"purchase unknown id", nil, plinko.PathPurchase, cookie, []string{"id", "999"}, purchaseShape, "9"},
		{"purchase owned", nil, plinko.PathPurchase, cookie, []string{"id", "302"}, purchaseShape, "10"},
		{"purchase insufficient", nil, plinko.PathPurchase, cookie, []string{"id", "501"}, purchaseShape, "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dec.cur.Store(forced(plinkoapi.TierSilver))
			if tt.decider != nil {
				dec.cur.Store(tt.decider)
			}
			a := post(t, ms.c, tt.path, tt.cookie, tt.kv...)
			checkShape(t, a, tt.shape)
			v, _ := a.Get("status_code")
			if fmt.Sprint(v) != tt.status {
				t.Errorf("status_code %v, want %s", v, tt.status)
			}
		})
	}
	for _, c := range []struct {
		login         string
		tickets, gold int64
		upgrades      int
	}{{"victim", 100, 20, 1}, {"pauper", 65, 53, 0}} {
		lid, _ := ms.app.DB.LoginID(c.login)
		acct, err := ms.app.DB.Account(lid)
		if err != nil {
			t.Fatal(err)
		}
		if acct.Tickets != c.tickets || acct.Gold != c.gold || len(acct.Upgrades) != c.upgrades {
			t.Errorf("%s changed: %d/%d %v", c.login, acct.Tickets, acct.Gold, acct.Upgrades)
		}
	}
	// Failure replies carry the unchanged balances, whatever refused the
	// drop.
	for _, tc := range []struct {
		name, cookie, currency string
		decider                *sdk.Plugin
		tickets, gold          string
	}{
		{"insufficient", poorCookie, "tickets", nil, "65", "53"},
		{"unknown currency", cookie, "silver", nil, "100", "20"},
		{"no currency", cookie, "", nil, "100", "20"},
		{"plugin unavailable", cookie, "tickets", unavailable, "100", "20"},
		{"invalid decision", cookie, "tickets", invalid, "100", "20"},
	} {
		dec.cur.Store(forced(plinkoapi.TierSilver))
		if tc.decider != nil {
			dec.cur.Store(tc.decider)
		}
		a := post(t, ms.c, plinko.PathDrop, tc.cookie, "currency", tc.currency)
		if str(a, "user_tickets") != tc.tickets || str(a, "user_gold") != tc.gold {
			t.Errorf("%s: drop reply balances %s/%s, want %s/%s", tc.name, str(a, "user_tickets"), str(a, "user_gold"), tc.tickets, tc.gold)
		}
	}
	if a := post(t, ms.c, plinko.PathPurchase, cookie, "id", "501"); num(a, "tickets_remaining") != 100 {
		t.Errorf("refused purchase tickets_remaining %d", num(a, "tickets_remaining"))
	}
}

// TestNoCatalog: without a catalog every chest is empty, so drops pay
// tickets, and the exchange lists nothing.
func TestNoCatalog(t *testing.T) {
	ms := newMockServer(t, forced(plinkoapi.TierSilver), "")
	_, cookie := player(t, ms.app, ms.c, "early", 500, 500)
	b := post(t, ms.c, plinko.PathBoard, cookie)
	checkShape(t, b, boardShape)
	if num(b, "status_code") != 1 || str(b, "amount_of_products") != "0,0,0,0,0,0" || str(b, "last_update_time") != "0,0,0,0,0,0" {
		t.Errorf("board %v", b)
	}
	d := post(t, ms.c, plinko.PathDrop, cookie, "currency", "tickets")
	checkShape(t, d, dropShape)
	if ex, _ := d.Bool("products_exhausted"); str(d, "status_code") != "1" || !ex || num(d, "ticket_amount") != 0 || str(d, "user_tickets") != "534" {
		t.Errorf("drop %v", d)
	}
	v := post(t, ms.c, plinko.PathViewChest, cookie, "tier_id", "1", "target_index", "1")
	checkShape(t, v, viewShape)
	if num(v, "items_amount") != 0 {
		t.Errorf("viewchest %v", v)
	}
	x := post(t, ms.c, plinko.PathExchange, cookie)
	checkShape(t, x, exchangeShape)
	if items, _ := x.Array("items"); num(x, "status_code") != 51 || items.Len() != 0 {
		t.Errorf("exchange %v", x)
	}
	p := post(t, ms.c, plinko.PathPurchase, cookie, "id", "1")
	checkShape(t, p, purchaseShape)
	if str(p, "status_code") != "9" || num(p, "tickets_remaining") != 534 {
		t.Errorf("purchase %v", p)
	}
}

func TestViewChestPages(t *testing.T) {
	// A Silver chest of 100 products, to see pages of 56.
	var b strings.Builder
	b.WriteString(`{"last_update":1,"chests":[{"tier":3,"products":[`)
	for i := 1; i <= 100; i++ {
		if i > 1 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"Hero_N%d.Alt1","type":"Alt Avatar","short_type":"aa","local_path":"/p/%d.tga"}`, 1000+i, i, i)
	}
	b.WriteString(`]}]}`)
	path := t.TempDir() + "/big.json"
	writeFile(t, path, b.String())
	ms := newMockServer(t, forced(plinkoapi.TierTickets30), path)
	_, cookie := player(t, ms.app, ms.c, "viewer", 0, 0)
	tests := []struct {
		tier, target     string
		first, n, first1 int64 // first_item_index, items_amount, id of the first item
	}{
		{"3", "1", 1, 56, 1001},
		{"3", "60", 32, 56, 1032},
		{"3", "100", 72, 29, 1072},
		{"1", "1", 0, 0, 0}, // empty Diamond chest
	}
	for _, tt := range tests {
		a := post(t, ms.c, plinko.PathViewChest, cookie, "tier_id", tt.tier, "target_index", tt.target)
		checkShape(t, a, viewShape)
		if num(a, "first_item_index") != tt.first || num(a, "items_amount") != tt.n || fmt.Sprint(num(a, "target_index")) != tt.target {
			t.Errorf("target %s: first %d n %d", tt.target, num(a, "first_item_index"), num(a, "items_amount"))
		}
		if tt.n == 0 {
			continue
		}
		ids := strings.Split(str(a, "product_ids"), ",")
		names := strings.Split(str(a, "product_names"), ",")
		types := strings.Split(str(a, "product_types"), ",")
		paths := strings.Split(str(a, "product_paths"), ",")
		if int64(len(ids)) != tt.n || len(names) != len(ids) || len(types) != len(ids) || len(paths) != len(ids) {
			t.Fatalf("list lengths %d %d %d %d", len(ids), len(names), len(types), len(paths))
		}
		if ids[0] != fmt.Sprint(tt.first1) || names[0] != fmt.Sprintf("Hero_N%d.Alt1", tt.first1-1000) || types[0] != "aa" || paths[0] != fmt.Sprintf("/p/%d.tga", tt.first1-1000) {
			t.Errorf("first item %s %s %s %s", ids[0], names[0], types[0], paths[0])
		}
	}
}

func TestExchange(t *testing.T) {
	ms := newMockServer(t, forced(plinkoapi.TierTickets30), catalogFile)
	id, cookie := player(t, ms.app, ms.c, "shopper", 3600, 0)
	a := post(t, ms.c, plinko.PathExchange, cookie)
	checkShape(t, a, exchangeShape)
	if num(a, "status_code") != 51 || str(a, "user_tickets") != "3600" {
		t.Errorf("list %v", a)
	}
	items, _ := a.Array("items")
	if items.Len() != 3 {
		t.Fatalf("%d items", items.Len())
	}
	wantItems := [][6]string{
		{"1", "1300", "501", "Super-Taunt", "Misc", "/ui/fe2/store/icons/taunt_super.tga"},
		{"2", "700", "302", "Hero_Ironbark.Alt1", "Alt Avatar", "/heroes/ironbark/alt1/icon.tga"},
		{"3", "1500", "601", "Winter Grab Bag", "Misc", "/ui/fe2/store/icons/grabbag_winter.tga"},
	}
	for i, w := range wantItems {
		it, _ := items.Array(int64(i))
		checkShape(t, it, itemShape)
		for j, e := range itemShape {
			if g := str(it, e.key); g != w[j] {
				t.Errorf("item %d %s = %q, want %q", i, e.key, g, w[j])
			}
		}
	}

	// A plain item.
	p := post(t, ms.c, plinko.PathPurchase, cookie, "id", "302")
	checkShape(t, p, purchaseShape)
	if str(p, "status_code") != "51" || num(p, "tickets_remaining") != 2900 {
		t.Errorf("purchase %v", p)
	}
	// A grab bag.
	g := post(t, ms.c, plinko.PathPurchase, cookie, "id", "601")
	checkShape(t, g, grabBagShape)
	want := map[string]string{"status_code": "51", "grabBagTheme": "christmas", "grabBagIDs": "611|612",
		"grabBagNames": "Hero_Frostwarden.Alt2|Golden Courier", "grabBagPaths": "/heroes/frostwarden/alt2/icon.tga|/ui/fe2/store/icons/courier_golden.tga",
		"grabBagTypes": "Alt Avatar|Couriers"}
	for k, w := range want {
		if str(g, k) != w {
			t.Errorf("%s = %q, want %q", k, str(g, k), w)
		}
	}
	if b, _ := g.Bool("grabBag"); !b || num(g, "tickets_remaining") != 1400 {
		t.Errorf("grab bag reply %v", g)
	}
	acct, _ := ms.app.Sys.Account(context.Background(), id)
	for _, u := range []string{"aa.Hero_Ironbark.Alt1", "aa.Hero_Frostwarden.Alt2", "c.Golden"} {
		if !acct.Owns(u) {
			t.Errorf("does not own %s", u)
		}
	}
	if acct.Tickets != 1400 {
		t.Errorf("tickets %d", acct.Tickets)
	}
	// Buying it again fails and charges nothing.
	if g := post(t, ms.c, plinko.PathPurchase, cookie, "id", "601"); str(g, "status_code") != "10" || num(g, "tickets_remaining") != 1400 {
		t.Errorf("second grab bag %v", g)
	}
}

// TestDropTicketOverflowHTTP: a drop whose payout would take the tickets
// past math.MaxInt64 is refused with the balance's status (3), the
// balances unchanged in the reply and in storage; one that reaches the
// maximum exactly succeeds.
func TestDropTicketOverflowHTTP(t *testing.T) {
	ms := newMockServer(t, forced(plinkoapi.TierTickets30), catalogFile)
	id, cookie := player(t, ms.app, ms.c, "whale", math.MaxInt64, 1000)
	d := post(t, ms.c, plinko.PathDrop, cookie, "currency", "gold")
	checkShape(t, d, dropShape)
	maxText := fmt.Sprint(int64(math.MaxInt64))
	if got := fmt.Sprint(str(d, "status_code"), " ", str(d, "user_tickets"), " ", str(d, "user_gold"), " ", str(d, "random_tier"), " ", str(d, "product_id")); got != "3 "+maxText+" 1000 0 -1" {
		t.Errorf("drop over the maximum: status, tickets, gold, tier, product = %s; want 3 %s 1000 0 -1", got, maxText)
	}
	if a, err := ms.app.Sys.DB().Account(id); err != nil {
		t.Fatal(err)
	} else if a.Tickets != math.MaxInt64 || a.Gold != 1000 || len(a.Upgrades) != 0 {
		t.Errorf("refused drop wrote: tickets %d, gold %d, upgrades %v", a.Tickets, a.Gold, a.Upgrades)
	}

	_, cookie = player(t, ms.app, ms.c, "brim", math.MaxInt64-30, 1000)
	d = post(t, ms.c, plinko.PathDrop, cookie, "currency", "gold")
	if str(d, "status_code") != "1" || str(d, "user_tickets") != maxText || num(d, "ticket_amount") != 30 {
		t.Errorf("drop to the maximum exactly: %v", d)
	}
}
