package plinko

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/failure/detail"
)

func TestParseCatalogExample(t *testing.T) {
	v := testView(t)
	c := v.cat
	if n := []int{len(c.Chests[0]), len(c.Chests[1]), len(c.Chests[2]), len(c.Chests[3]), len(c.Exchange)}; n[0] != 1 || n[1] != 2 || n[2] != 2 || n[3] != 1 || n[4] != 3 {
		t.Fatalf("sizes %v", n)
	}
	if c.LastUpdate != [6]int64{1700000001, 1700000000, 1700000000, 1700000000, 1700000000, 1700000000} {
		t.Errorf("last update %v", c.LastUpdate)
	}
	if got := c.Chests[1][1]; got.Upgrade != "av.Thunder" || got.LocalPath != "" {
		t.Errorf("explicit upgrade, empty path: %+v", got)
	}
	if got := c.Chests[0][0].Upgrade; got != "aa.Hero_Stormherald.Alt1" {
		t.Errorf("default upgrade %q", got)
	}
	bag := c.Exchange[2].GrabBag
	if bag == nil || bag.Theme != "christmas" || len(bag.Products) != 2 || c.Exchange[2].Product.Upgrade != "" {
		t.Errorf("grab bag %+v", c.Exchange[2])
	}
}

func TestParseCatalogRejects(t *testing.T) {
	p := func(id, name string) string {
		return `{"id":` + id + `,"name":"` + name + `","type":"Alt Avatar","short_type":"aa","local_path":""}`
	}
	chest := func(tier string, products ...string) string {
		return `{"chests":[{"tier":` + tier + `,"products":[` + strings.Join(products, ",") + `]}]}`
	}
	tests := []struct{ name, json string }{
		{"unknown field", `{"chests":[],"prizes":[]}`},
		{"unknown product field", `{"chests":[{"tier":1,"products":[{"id":1,"name":"a","type":"b","short_type":"c","price":3}]}]}`},
		{"format 2", `{"format":2}`},
		{"trailing data", `{} {}`},
		{"tier 5", chest("5", p("1", "Hero_A.Alt1"))},
		{"tier 0", chest("0")},
		{"tier twice", `{"chests":[{"tier":1},{"tier":1}]}`},
		{"id 0", chest("1", p("0", "Hero_A.Alt1"))},
		{"no name", chest("1", p("1", ""))},
		{"comma in name", chest("1", p("1", "Hero_A,Alt1"))},
		{"pipe in name", chest("1", p("1", "Hero_A|Alt1"))},
		{"space makes a bad default upgrade", chest("1", p("1", "Hero A"))},
		{"bad upgrade", chest("1", `{"id":1,"name":"x","type":"Misc","short_type":"t","upgrade":"nodot"}`)},
		{"id twice in chest", chest("1", p("1", "Hero_A.Alt1"), p("1", "Hero_A.Alt1"))},
		{"upgrade twice in chest", chest("1", p("1", "Hero_A.Alt1"), p("2", "Hero_A.Alt1"))},
		{"one id two products", `{"chests":[{"tier":1,"products":[` + p("1", "Hero_A.Alt1") + `]},{"tier":2,"products":[` + p("1", "Hero_B.Alt1") + `]}]}`},
		{"cost 0", `{"exchange":[` + strings.TrimSuffix(p("1", "Hero_A.Alt1"), "}") + `,"cost":0}]}`},
		{"exchange id twice", `{"exchange":[` + strings.TrimSuffix(p("1", "Hero_A.Alt1"), "}") + `,"cost":5},` + strings.TrimSuffix(p("1", "Hero_A.Alt1"), "}") + `,"cost":6}]}`},
		{"bad theme", `{"exchange":[{"id":9,"name":"Bag","type":"Misc","short_type":"gb","cost":5,"grab_bag":{"theme":"easter","products":[` + p("1", "Hero_A.Alt1") + `]}}]}`},
		{"empty bag", `{"exchange":[{"id":9,"name":"Bag","type":"Misc","short_type":"gb","cost":5,"grab_bag":{"theme":"default","products":[]}}]}`},
		{"bag with upgrade", `{"exchange":[{"id":9,"name":"Bag","type":"Misc","short_type":"gb","upgrade":"gb.Bag","cost":5,"grab_bag":{"theme":"default","products":[` + p("1", "Hero_A.Alt1") + `]}}]}`},
		{"negative last_update", `{"last_update":-1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ParseCatalog(strings.NewReader(tt.json), time.Unix(1, 0)); !errors.Is(err, ErrCatalog) {
				t.Fatalf("err = %v, want ErrCatalog", err)
			}
		})
	}
	big := make([]string, MaxChestProducts+1)
	for i := range big {
		big[i] = p(itoa(int64(i+1)), "Hero_A.Alt"+itoa(int64(i)))
	}
	if _, err := ParseCatalog(strings.NewReader(chest("2", big...)), time.Unix(1, 0)); !errors.Is(err, ErrCatalog) {
		t.Errorf("%d products in a chest: err = %v", len(big), err)
	}
	// Absent last_update means the import time.
	c, err := ParseCatalog(strings.NewReader(`{}`), time.Unix(1234, 0))
	if err != nil || c.LastUpdate[0] != 1234 || c.LastUpdate[5] != 1234 {
		t.Errorf("empty catalog: %+v, %v", c, err)
	}
}

func TestDemoCatalog(t *testing.T) {
	c := DemoCatalog()
	for i, ch := range c.Chests {
		if len(ch) < 3 {
			t.Errorf("chest %d has %d products", i+1, len(ch))
		}
	}
	if grabBags(c) != 2 || len(c.Exchange) < 4 {
		t.Errorf("exchange %d items, %d grab bags", len(c.Exchange), grabBags(c))
	}
}

// TestCatalogCache checks that a database without a catalog reads as an
// empty one, that an unchanged catalog is not decoded again, and that a new
// import is seen on the next request.
func TestCatalogCache(t *testing.T) {
	sys := actorstest.New(t)
	cache := &catalogCache{sys: sys}
	if v, err := cache.get(); err != nil || len(v.cat.Exchange) != 0 || len(v.cat.Chests[0]) != 0 {
		t.Fatalf("no catalog: %+v, %v", v, err)
	}
	ctx := context.Background()
	f, err := os.ReadFile("testdata/catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ImportCatalog(ctx, sys, bytes.NewReader(f), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "diamond 1, gold 2, silver 2, bronze 1 products; exchange 3 items (1 grab bags)") {
		t.Errorf("summary %q", out.String())
	}
	v1, err := cache.get()
	if err != nil || len(v1.cat.Chests[2]) != 2 {
		t.Fatalf("first get: %v", err)
	}
	if v, _ := cache.get(); v != v1 {
		t.Error("unchanged catalog decoded again")
	}
	if err := PutCatalog(ctx, sys, DemoCatalog()); err != nil {
		t.Fatal(err)
	}
	v2, err := cache.get()
	if err != nil || v2 == v1 || len(v2.cat.Chests[2]) != len(DemoCatalog().Chests[2]) {
		t.Fatalf("after a new catalog: %v", err)
	}
	if err := ImportCatalog(ctx, sys, strings.NewReader(`{"chests":[{"tier":7}]}`), &out); !errors.Is(err, ErrCatalog) {
		t.Errorf("invalid import: %v", err)
	}
	if c, _ := StoredCatalog(sys.DB()); len(c.Chests[2]) != len(DemoCatalog().Chests[2]) {
		t.Error("an invalid import changed the stored catalog")
	}
}

// TestCatalogUpgradeControlChars: an upgrade id reaching the catalog
// through a JSON escape is held to the grant's rule (accounts.CheckUpgrade):
// no control or invisible characters, and the refusal says the rule. (JSON
// decoding turns invalid UTF-8 and lone surrogates into U+FFFD.)
func TestCatalogUpgradeControlChars(t *testing.T) {
	for _, u := range []string{`t.Su\nper`, `t.Su\u0000per`, `t.Su\u202eper`, `t.Su\u200bper`, `t.Su\u0085per`} {
		src := `{"exchange":[{"id":501,"name":"Super-Taunt","type":"Misc","short_type":"t","upgrade":"` + u + `","cost":10}]}`
		_, err := ParseCatalog(strings.NewReader(src), time.Unix(1, 0))
		if !errors.Is(err, ErrCatalog) {
			t.Errorf("catalog with upgrade %s: err = %v, want ErrCatalog", u, err)
			continue
		}
		if d, _ := detail.Of(err, ErrCatalog); !strings.Contains(d, "is refused: "+accounts.ErrBadUpgrade.Error()) {
			t.Errorf("catalog with upgrade %s: detail %q does not say the rule", u, d)
		}
	}
	// Escapes of visible characters are fine.
	src := `{"exchange":[{"id":501,"name":"Super-Taunt","type":"Misc","short_type":"t","upgrade":"t.Su\u00e9per","cost":10}]}`
	if c, err := ParseCatalog(strings.NewReader(src), time.Unix(1, 0)); err != nil || c.Exchange[0].Product.Upgrade != "t.Suéper" {
		t.Errorf("catalog with upgrade t.Su\\u00e9per: %v", err)
	}
}

// TestCatalogTextsArePlain: a catalog item's name, type and local path,
// which every client's exchange list carries, are refused with a tab, an
// escape or an invisible or text-direction character, as upgrade ids and
// nicknames are; only comma, pipe, NUL, CR and LF were refused before.
func TestCatalogTextsArePlain(t *testing.T) {
	for _, name := range []string{`Super\tTaunt`, `Super\u001bTaunt`, `Super\u202eTaunt`, `Super\u200bTaunt`} {
		src := `{"exchange":[{"id":501,"name":"` + name + `","type":"Misc","short_type":"t","upgrade":"t.Super","cost":10}]}`
		if _, err := ParseCatalog(strings.NewReader(src), time.Unix(1, 0)); !errors.Is(err, ErrCatalog) {
			t.Errorf("catalog with name %s: err = %v, want ErrCatalog", name, err)
		}
	}
	src := `{"exchange":[{"id":501,"name":"Super Taunt \u00e9","type":"Misc","short_type":"t","upgrade":"t.Super","cost":10}]}`
	if _, err := ParseCatalog(strings.NewReader(src), time.Unix(1, 0)); err != nil {
		t.Errorf("catalog with a visible accented name: %v", err)
	}
}
