package plinko_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/plinko"
	"github.com/honmaster/masterserver/wire"
)

// e2eServer is a real server (see clitest: bundled plugin subprocess,
// actors, on-disk storage) on loopback.
type e2eServer struct{ *clitest.Server }

func startE2E(t testing.TB, demo bool) *e2eServer {
	t.Helper()
	if demo {
		return &e2eServer{clitest.StartDemo(t, roomyWrites)}
	}
	return &e2eServer{clitest.Start(t, roomyWrites)}
}

// roomyWrites gives each account a burst of 1000 drops and purchases:
// these tests send in a fraction of a second more than the default 30
// that a player's client, animating each drop, never does (64 drops at
// once of one account). The limits have their own tests
// (ratelimit_test.go).
func roomyWrites(c *config.Config) {
	s := plinko.SettingsOf(c)
	s.WriteBurst = 1000
	config.SetSection(c, "plinko", s)
}

// unlimitedWrites turns the drop and purchase limits off (write_burst 0),
// as for a load test: the benchmarks measure drops, not refusals.
func unlimitedWrites(c *config.Config) {
	s := plinko.SettingsOf(c)
	s.WriteBurst = 0
	config.SetSection(c, "plinko", s)
}

// host runs an operator command as an operator would (through the running
// server's admin socket).
func (s *e2eServer) host(t *testing.T, args ...string) string { return s.Host(t, args...) }

// upgradeOf maps product ids of the example catalog's chests to upgrades.
var upgradeOf = map[string]string{
	"101": "aa.Hero_Stormherald.Alt1", "201": "aa.Hero_Emberwitch.Alt1", "202": "av.Thunder",
	"301": "aa.Hero_Tidecaller.Alt1", "302": "aa.Hero_Ironbark.Alt1", "401": "aa.Hero_Pyromancer.Alt1",
}

// outcome is what one successful drop reply says.
type outcome struct {
	tickets, gold int64 // after
	won           int64 // tickets won: ticket_amount, or an exhausted chest's payout (its ticket_amount is 0)
	product       string
	exhausted     bool
}

func parseDrop(t testing.TB, a *wire.Array) outcome {
	t.Helper()
	if str(a, "status_code") != "1" {
		t.Fatalf("drop failed: %v", a)
	}
	tk, _ := strconv.ParseInt(str(a, "user_tickets"), 10, 64)
	gd, _ := strconv.ParseInt(str(a, "user_gold"), 10, 64)
	ex, _ := a.Bool("products_exhausted")
	tier, _ := strconv.Atoi(str(a, "random_tier"))
	o := outcome{tickets: tk, gold: gd, won: num(a, "ticket_amount"), product: str(a, "product_id"), exhausted: ex}
	switch {
	case tier < 1 || tier > 6:
		t.Errorf("random_tier %d", tier)
	case tier >= 5 && (o.product != "-1" || o.won != map[int]int64{5: 60, 6: 30}[tier]):
		t.Errorf("ticket tier %d reply %v", tier, a)
	case tier <= 4 && o.product == "-1" && (!ex || o.won != 0):
		t.Errorf("exhausted chest %d reply %v (ticket_amount must be 0)", tier, a)
	case tier <= 4 && o.product != "-1" && (ex || o.won != 0 || upgradeOf[o.product] == ""):
		t.Errorf("chest %d prize reply %v", tier, a)
	}
	if ex {
		o.won = map[int]int64{1: 350, 2: 225, 3: 100, 4: 80}[tier]
	}
	return o
}

// TestEndToEnd runs every endpoint against a real server with the bundled
// plugin: catalog import by the operator command, board, N drops whose
// balances follow from the replies, ownership of the prizes in a later
// login, chest listing, exchange and purchase.
func TestEndToEnd(t *testing.T) {
	s := startE2E(t, false)
	abs, _ := filepath.Abs(catalogFile)
	if out := s.host(t, "products", "import", abs); !strings.Contains(out, "catalog imported") {
		t.Fatalf("import: %q", out)
	}
	s.host(t, "account", "create", "--login", "plinker", "--password", "pw-plinker")
	s.host(t, "account", "grant", "--login", "plinker", "--tickets", "5000", "--gold", "3000")
	ctx := context.Background()
	sess, err := s.Client.Login(ctx, "plinker", "pw-plinker")
	if err != nil {
		t.Fatal(err)
	}
	b := post(t, s.Client, plinko.PathBoard, sess.Cookie)
	checkShape(t, b, boardShape)
	if str(b, "user_tickets") != "5000" || str(b, "user_gold") != "3000" || str(b, "amount_of_products") != "0,2,1,1,0,2" {
		t.Errorf("board %v", b)
	}

	const n = 30
	tickets, gold := int64(5000), int64(3000)
	var won []string
	for i := range n {
		cur := "tickets"
		if i%3 == 0 {
			cur = "gold"
		}
		a := post(t, s.Client, plinko.PathDrop, sess.Cookie, "currency", cur)
		checkShape(t, a, dropShape)
		o := parseDrop(t, a)
		if cur == "gold" {
			gold -= 54
		} else {
			tickets -= 66
		}
		tickets += o.won
		if o.product != "-1" {
			won = append(won, upgradeOf[o.product])
		}
		if o.tickets != tickets || o.gold != gold {
			t.Fatalf("drop %d: balances %d/%d, want %d/%d", i, o.tickets, o.gold, tickets, gold)
		}
	}
	// Ownership: every prize appears once, in a later login's my_upgrades.
	sess2, err := s.Client.Login(ctx, "plinker", "pw-plinker")
	if err != nil {
		t.Fatal(err)
	}
	my, _ := sess2.Record.Array("my_upgrades")
	var owned []string
	for _, v := range my.All() {
		owned = append(owned, v.(string))
	}
	if strings.Join(owned, " ") != strings.Join(won, " ") {
		t.Errorf("my_upgrades %v, prizes won %v", owned, won)
	}
	b = post(t, s.Client, plinko.PathBoard, sess2.Cookie)
	if str(b, "user_tickets") != strconv.FormatInt(tickets, 10) || str(b, "user_gold") != strconv.FormatInt(gold, 10) {
		t.Errorf("board after drops %s/%s, want %d/%d", str(b, "user_tickets"), str(b, "user_gold"), tickets, gold)
	}

	v := post(t, s.Client, plinko.PathViewChest, sess2.Cookie, "tier_id", "2", "target_index", "2")
	checkShape(t, v, viewShape)
	if str(v, "product_ids") != "201,202" || str(v, "product_types") != "aa,av" || str(v, "product_paths") != "/heroes/emberwitch/alt1/icon.tga," {
		t.Errorf("viewchest %v", v)
	}
	x := post(t, s.Client, plinko.PathExchange, sess2.Cookie)
	checkShape(t, x, exchangeShape)
	p := post(t, s.Client, plinko.PathPurchase, sess2.Cookie, "id", "501")
	checkShape(t, p, purchaseShape)
	if str(p, "status_code") != "51" || num(p, "tickets_remaining") != tickets-1300 {
		t.Errorf("purchase %v (tickets before %d)", p, tickets)
	}
	if out := s.host(t, "account", "show", "--login", "plinker"); !strings.Contains(out, "t.Super") {
		t.Errorf("account show lacks the bought item: %s", out)
	}
	if p := post(t, s.Client, plinko.PathPurchase, sess2.Cookie, "id", "501"); str(p, "status_code") != "10" {
		t.Errorf("second purchase %v", p)
	}
}

// TestConcurrentDropsOneAccount sends 64 drops at once for one account
// whose tickets cover only some of them: no drop overspends, the final
// balance is start - cost x drops + winnings, and every prize is owned once.
func TestConcurrentDropsOneAccount(t *testing.T) {
	s := startE2E(t, false)
	abs, _ := filepath.Abs(catalogFile)
	s.host(t, "products", "import", abs)
	s.host(t, "account", "create", "--login", "crowd", "--password", "pw-crowd")
	const start = 20 * 66
	s.host(t, "account", "grant", "--login", "crowd", "--tickets", strconv.Itoa(start))
	sess, err := s.Client.Login(context.Background(), "crowd", "pw-crowd")
	if err != nil {
		t.Fatal(err)
	}
	const n = 64
	replies := make([]*wire.Array, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[i] = post(t, s.Client, plinko.PathDrop, sess.Cookie, "currency", "tickets")
		}()
	}
	wg.Wait()
	var drops, winnings int64
	var prizes []string
	for _, a := range replies {
		checkShape(t, a, dropShape)
		switch str(a, "status_code") {
		case "1":
			o := parseDrop(t, a)
			drops++
			winnings += o.won
			if o.tickets < 0 {
				t.Errorf("overspent: %d tickets", o.tickets)
			}
			if o.product != "-1" {
				prizes = append(prizes, upgradeOf[o.product])
			}
		case "3":
		default:
			t.Errorf("drop reply %v", a)
		}
	}
	id, _ := s.Runtime.App.DB.LoginID("crowd")
	acct, err := s.Runtime.App.DB.Account(id)
	if err != nil {
		t.Fatal(err)
	}
	if want := start - 66*drops + winnings; acct.Tickets != want || acct.Tickets < 0 {
		t.Errorf("tickets %d, want %d (drops %d, winnings %d)", acct.Tickets, want, drops, winnings)
	}
	if drops < 20 {
		t.Errorf("only %d drops succeeded with tickets for 20", drops)
	}
	seen := map[string]bool{}
	for _, u := range acct.Upgrades {
		if seen[u.ID] {
			t.Errorf("upgrade %s granted twice", u.ID)
		}
		seen[u.ID] = true
	}
	if len(acct.Upgrades) != len(prizes) {
		t.Errorf("owns %d upgrades, replies won %d prizes", len(acct.Upgrades), len(prizes))
	}
	for _, p := range prizes {
		if !seen[p] {
			t.Errorf("won %s but does not own it", p)
		}
	}
	t.Logf("%d drops succeeded, %d refused, %d tickets won, %d prizes", drops, n-drops, winnings, len(prizes))
}

// TestDemoCatalogSeeded: serve --demo seeds the demo catalog.
func TestDemoCatalogSeeded(t *testing.T) {
	s := startE2E(t, true)
	sess, err := s.Client.Login(context.Background(), "demo", "demo-pass")
	if err != nil {
		t.Fatal(err)
	}
	b := post(t, s.Client, plinko.PathBoard, sess.Cookie)
	c := plinko.DemoCatalog()
	want := strings.Join([]string{"0", strconv.Itoa(len(c.Chests[2])), strconv.Itoa(len(c.Chests[3])), strconv.Itoa(len(c.Chests[0])), "0", strconv.Itoa(len(c.Chests[1]))}, ",")
	if num(b, "status_code") != 1 || str(b, "amount_of_products") != want {
		t.Errorf("demo board %v, want amounts %s", b, want)
	}
	x := post(t, s.Client, plinko.PathExchange, sess.Cookie)
	if items, _ := x.Array("items"); items.Len() != len(c.Exchange) {
		t.Errorf("demo exchange %v", x)
	}
}
