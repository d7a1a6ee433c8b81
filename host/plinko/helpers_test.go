package plinko_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/plinko"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// mockServer is an in-process host (login routes and the plinko area) on a
// loopback port, with a decider the test controls.
type mockServer struct {
	app  *cli.App
	c    *client.Client
	area *plinko.Area
	base string // "http://127.0.0.1:PORT"
}

// newMockServer starts a host over a temporary data directory. catalog is
// imported unless empty.
func newMockServer(t *testing.T, decider sdk.Caller, catalog string) *mockServer {
	return newMockServerWith(t, decider, catalog, nil, nil)
}

// newMockServerWith is newMockServer with the area's settings changed by
// set (nil: the defaults) and its limits' clock now (nil: the wall clock).
// nodes, when given, is the cluster nodes sharing each per-address budget
// (config.Limits.SharedBy).
func newMockServerWith(t *testing.T, decider sdk.Caller, catalog string, set func(*plinko.Settings), now func() time.Time, nodes ...int) *mockServer {
	t.Helper()
	app, cfg, log := clitest.OpenApp(t)
	settings := plinko.SettingsOf(cfg)
	if set != nil {
		set(&settings)
	}
	deps := plinko.Deps{Sys: app.Sys, Login: app.Login, Decider: decider, Config: settings, Log: log, Now: now}
	for _, n := range nodes {
		deps.Nodes = n
	}
	area, err := plinko.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Deps{Config: cfg, Logger: log, Login: app.Login, Accounts: app.Accounts})
	if err := srv.Mount(area.Routes()...); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-done
	})
	if catalog != "" {
		importFile(t, app, catalog)
	}
	base := "http://" + ln.Addr().String()
	return &mockServer{app: app, c: client.New(base), area: area, base: base}
}

func importFile(t *testing.T, app *cli.App, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := plinko.ImportCatalog(context.Background(), app.Sys, f, io.Discard); err != nil {
		t.Fatal(err)
	}
}

// player creates an account with balances and upgrades and logs it in.
func player(t *testing.T, app *cli.App, c *client.Client, login string, tickets, gold int64, upgrades ...string) (storage.AccountID, string) {
	t.Helper()
	ctx := context.Background()
	a, err := app.Accounts.Create(ctx, accounts.Create{Login: login, Password: "pw-" + login})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&accounts.Grant{Tickets: tickets, Gold: gold, Silver: 7, Upgrades: upgrades}).To(ctx, app.Sys, a.ID); err != nil {
		t.Fatal(err)
	}
	s, err := c.Login(ctx, login, "pw-"+login)
	if err != nil {
		t.Fatal(err)
	}
	return a.ID, s.Cookie
}

// post sends a form with the cookie and decodes the PHP reply.
func post(t testing.TB, c *client.Client, path, cookie string, kv ...string) *wire.Array {
	t.Helper()
	form := url.Values{"cookie": {cookie}}
	for i := 0; i+1 < len(kv); i += 2 {
		form.Set(kv[i], kv[i+1])
	}
	r, err := c.PostForm(context.Background(), path, form)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != 200 {
		t.Fatalf("%s: HTTP %d: %s", path, r.Status, r.Body)
	}
	a, err := r.PHP()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

type entry struct{ key, kind string }

// checkShape checks the keys, their order and their types.
func checkShape(t testing.TB, a *wire.Array, want []entry) {
	t.Helper()
	keys := a.Keys()
	if len(keys) != len(want) {
		t.Fatalf("%d entries %v, want %d %v", len(keys), keys, len(want), want)
	}
	for i, w := range want {
		if fmt.Sprint(keys[i]) != w.key {
			t.Errorf("entry %d is %v, want %s", i, keys[i], w.key)
			continue
		}
		v, _ := a.Get(keys[i])
		if wire.Kind(v) != w.kind {
			t.Errorf("%s is %s (%v), want %s", w.key, wire.Kind(v), v, w.kind)
		}
	}
}

var (
	boardShape = []entry{{"status_code", "int"}, {"tiers", "array"}, {"ticket_cost", "string"}, {"gold_cost", "string"},
		{"user_gold", "string"}, {"silver", "string"}, {"user_tickets", "string"}, {"amount_of_products", "string"}, {"last_update_time", "string"}}
	dropShape = []entry{{"user_tickets", "string"}, {"user_gold", "string"}, {"status_code", "string"}, {"random_tier", "string"},
		{"product_id", "string"}, {"product_name", "string"}, {"product_type", "string"}, {"product_path", "string"},
		{"products_exhausted", "bool"}, {"ticket_amount", "int"}}
	viewShape = []entry{{"tier_id", "int"}, {"items_amount", "int"}, {"first_item_index", "int"}, {"target_index", "int"},
		{"product_names", "string"}, {"product_types", "string"}, {"product_paths", "string"}, {"product_ids", "string"}}
	viewErrorShape = append([]entry{{"status_code", "int"}}, viewShape...)
	exchangeShape  = []entry{{"status_code", "int"}, {"items", "array"}, {"user_tickets", "string"}}
	itemShape      = []entry{{"id", "string"}, {"cost", "string"}, {"product_id", "string"}, {"name", "string"}, {"type", "string"}, {"local_path", "string"}}
	purchaseShape  = []entry{{"status_code", "string"}, {"tickets_remaining", "int"}, {"grabBag", "bool"}}
	grabBagShape   = append(append([]entry{}, purchaseShape...), entry{"grabBagTheme", "string"}, entry{"grabBagIDs", "string"},
		entry{"grabBagNames", "string"}, entry{"grabBagPaths", "string"}, entry{"grabBagTypes", "string"})
)

func str(a *wire.Array, key string) string { s, _ := a.String(key); return s }
func num(a *wire.Array, key string) int64  { n, _ := a.Int(key); return n }

// forced is a decider that always draws tier t and otherwise decides as
// the default decider does (prize index 0).
func forced(t plinkoapi.Tier) *sdk.Plugin {
	return sdk.Mock(plinkoapi.Drop, func(_ context.Context, c sdk.Call[plinkoapi.DropFacts]) (sdk.Result[plinkoapi.DropDecision], error) {
		f := c.Facts
		d := plinkoapi.DropDecision{Tier: t, PrizeIndex: -1}
		switch {
		case !t.IsChest():
			d.Tickets = t.Tickets()
		case f.UnownedOf(t) == 0:
			d.Exhausted, d.Tickets = true, t.Tickets()
		default:
			d.PrizeIndex = 0
		}
		return sdk.Result[plinkoapi.DropDecision]{Decision: d}, nil
	})
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
