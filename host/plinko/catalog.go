package plinko

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/failure/detail"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// Limits of an imported catalog. The recorded original had up to 772
// products in one chest; these bounds leave room for that and keep a
// catalog small enough to hold in memory and re-check on every request.
const (
	MaxChestProducts   = 100 * ChestPage // per chest tier
	MaxExchangeItems   = 1000
	MaxGrabBagProducts = ChestPage
	maxTextLen         = 256 // name, type, path, upgrade
)

// GrabBagThemes are the themes the client knows (spec, Plinko).
var GrabBagThemes = []string{"default", "christmas", "esports", "celebrate", "halloween"}

// catalogFile is the documented JSON catalog format (catalog.md).
type catalogFile struct {
	Format     int             `json:"format"`
	LastUpdate int64           `json:"last_update"`
	Chests     []chestFile     `json:"chests"`
	Exchange   []exchangeEntry `json:"exchange"`
}

type chestFile struct {
	Tier       int           `json:"tier"`
	LastUpdate int64         `json:"last_update"`
	Products   []productFile `json:"products"`
}

type productFile struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	Type      string `json:"type"`
	ShortType string `json:"short_type"`
	LocalPath string `json:"local_path"`
	Upgrade   string `json:"upgrade"`
}

type exchangeEntry struct {
	productFile
	Cost    int64        `json:"cost"`
	GrabBag *grabBagFile `json:"grab_bag"`
}

type grabBagFile struct {
	Theme    string        `json:"theme"`
	Products []productFile `json:"products"`
}

// catalogFormat is the only format version; "format" may be omitted.
const catalogFormat = 1

// ErrCatalog marks an invalid catalog file; the detail.Error of this kind
// says what is wrong (detail.Of).
var ErrCatalog = errors.New("plinko: invalid catalog")

// ParseCatalog reads and validates a catalog in the documented JSON format.
// Unknown fields are rejected. now fills last_update times the file leaves
// out.
func ParseCatalog(r io.Reader, now time.Time) (*Catalog, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f catalogFile
	if err := dec.Decode(&f); err != nil {
		return nil, detail.New(ErrCatalog, "%w", err)
	}
	if dec.More() {
		return nil, detail.New(ErrCatalog, "trailing data after the catalog object")
	}
	return f.catalog(now)
}

func (f *catalogFile) catalog(now time.Time) (*Catalog, error) {
	bad := func(format string, args ...any) error {
		return detail.New(ErrCatalog, format, args...)
	}
	if f.Format != 0 && f.Format != catalogFormat {
		return nil, bad("format %d, want %d", f.Format, catalogFormat)
	}
	if f.LastUpdate < 0 {
		return nil, bad("last_update %d is negative", f.LastUpdate)
	}
	def := f.LastUpdate
	if def == 0 {
		def = now.Unix()
	}
	c := &Catalog{}
	for i := range c.LastUpdate {
		c.LastUpdate[i] = def
	}
	// One product id means one product wherever it appears.
	byID := map[int64]Product{}
	product := func(where string, p productFile) (Product, error) {
		sp, err := p.product()
		if err != nil {
			return sp, bad("%s: %v", where, err)
		}
		if prev, ok := byID[sp.ID]; ok && prev != sp {
			return sp, bad("%s: product id %d is used for two different products (%q and %q)", where, sp.ID, prev.Name, sp.Name)
		}
		byID[sp.ID] = sp
		return sp, nil
	}

	seenTier := map[int]bool{}
	for i, ch := range f.Chests {
		where := fmt.Sprintf("chests[%d]", i)
		t := plinkoapi.Tier(ch.Tier)
		switch {
		case !t.IsChest():
			return nil, bad("%s: tier %d, want a chest tier 1 to 4", where, ch.Tier)
		case seenTier[ch.Tier]:
			return nil, bad("%s: tier %d listed twice", where, ch.Tier)
		case len(ch.Products) > MaxChestProducts:
			return nil, bad("%s: %d products, at most %d", where, len(ch.Products), MaxChestProducts)
		case ch.LastUpdate < 0:
			return nil, bad("%s: last_update %d is negative", where, ch.LastUpdate)
		}
		seenTier[ch.Tier] = true
		if ch.LastUpdate != 0 {
			c.LastUpdate[t-1] = ch.LastUpdate
		}
		ids, upgrades := map[int64]bool{}, map[string]bool{}
		chest := make([]Product, 0, len(ch.Products))
		for j, p := range ch.Products {
			pw := fmt.Sprintf("%s.products[%d]", where, j)
			sp, err := product(pw, p)
			if err != nil {
				return nil, err
			}
			if ids[sp.ID] || upgrades[sp.Upgrade] {
				return nil, bad("%s: product %d (%s) is in the chest twice", pw, sp.ID, sp.Upgrade)
			}
			ids[sp.ID], upgrades[sp.Upgrade] = true, true
			chest = append(chest, sp)
		}
		c.Chests[t-1] = chest
	}

	if len(f.Exchange) > MaxExchangeItems {
		return nil, bad("exchange: %d items, at most %d", len(f.Exchange), MaxExchangeItems)
	}
	exIDs := map[int64]bool{}
	for i, e := range f.Exchange {
		where := fmt.Sprintf("exchange[%d]", i)
		if e.Cost <= 0 {
			return nil, bad("%s: cost %d, want > 0", where, e.Cost)
		}
		var item ExchangeItem
		item.Cost = e.Cost
		if e.GrabBag == nil {
			sp, err := product(where, e.productFile)
			if err != nil {
				return nil, err
			}
			item.Product = sp
		} else {
			// The bag itself is a listing; what it grants are its products.
			if e.Upgrade != "" {
				return nil, bad("%s: a grab bag grants its products; it has no upgrade of its own", where)
			}
			sp, err := e.productFile.listing()
			if err != nil {
				return nil, bad("%s: %v", where, err)
			}
			item.Product = sp
			bag, err := e.GrabBag.bag(where, product)
			if err != nil {
				return nil, err
			}
			item.GrabBag = bag
		}
		if exIDs[item.Product.ID] {
			return nil, bad("%s: product id %d is in the exchange twice (purchases name items by product id)", where, item.Product.ID)
		}
		exIDs[item.Product.ID] = true
		c.Exchange = append(c.Exchange, item)
	}
	return c, nil
}

func (g *grabBagFile) bag(where string, product func(string, productFile) (Product, error)) (*GrabBag, error) {
	bad := func(format string, args ...any) error {
		return detail.New(ErrCatalog, "%s.grab_bag: %s", where, fmt.Sprintf(format, args...))
	}
	themeOK := false
	for _, t := range GrabBagThemes {
		themeOK = themeOK || g.Theme == t
	}
	switch {
	case !themeOK:
		return nil, bad("theme %q, want one of %s", g.Theme, strings.Join(GrabBagThemes, ", "))
	case len(g.Products) == 0:
		return nil, bad("no products")
	case len(g.Products) > MaxGrabBagProducts:
		return nil, bad("%d products, at most %d", len(g.Products), MaxGrabBagProducts)
	}
	bag := &GrabBag{Theme: g.Theme}
	upgrades := map[string]bool{}
	for j, p := range g.Products {
		sp, err := product(fmt.Sprintf("%s.grab_bag.products[%d]", where, j), p)
		if err != nil {
			return nil, err
		}
		if upgrades[sp.Upgrade] {
			return nil, bad("upgrade %s twice", sp.Upgrade)
		}
		upgrades[sp.Upgrade] = true
		bag.Products = append(bag.Products, sp)
	}
	return bag, nil
}

// listing checks the fields every listed product needs.
func (p productFile) listing() (Product, error) {
	sp := Product(p)
	switch {
	case p.ID <= 0:
		return sp, fmt.Errorf("id %d, want > 0", p.ID)
	case p.Name == "":
		return sp, errors.New("name is empty")
	case p.Type == "":
		return sp, errors.New("type is empty")
	case p.ShortType == "":
		return sp, errors.New("short_type is empty")
	}
	// These fields travel in comma- and pipe-separated lists.
	for _, f := range []struct{ name, v string }{{"name", p.Name}, {"type", p.Type}, {"short_type", p.ShortType}, {"local_path", p.LocalPath}} {
		if strings.ContainsAny(f.v, ",|") || !accounts.PlainText(f.v) || len(f.v) > maxTextLen {
			return sp, fmt.Errorf("%s %q contains a comma, a pipe, a control or invisible character or text that is not UTF-8, or is longer than %d bytes", f.name, f.v, maxTextLen)
		}
	}
	if strings.ContainsAny(p.ShortType, " .") {
		return sp, fmt.Errorf("short_type %q contains a space or a dot", p.ShortType)
	}
	return sp, nil
}

// product checks a product that is granted: it needs a well-formed upgrade,
// by default "<short_type>.<name>".
func (p productFile) product() (Product, error) {
	sp, err := p.listing()
	if err != nil {
		return sp, err
	}
	if sp.Upgrade == "" {
		sp.Upgrade = sp.ShortType + "." + sp.Name
	}
	// The rule of every granted upgrade (account grant --upgrade too).
	if err := accounts.CheckUpgrade(sp.Upgrade); err != nil {
		return sp, fmt.Errorf("upgrade %q is refused: %w", sp.Upgrade, err)
	}
	return sp, nil
}

// ImportCatalog reads a catalog in the documented JSON format (catalog.md),
// validates it, stores it through the registry actor and prints a summary.
// A running server picks it up on its next request.
func ImportCatalog(ctx context.Context, sys *actors.System, r io.Reader, out io.Writer) error {
	c, err := ParseCatalog(r, time.Now())
	if err != nil {
		return err
	}
	if err := PutCatalog(ctx, sys, c); err != nil {
		return fmt.Errorf("plinko: store catalog: %w", err)
	}
	fmt.Fprintf(out, "catalog imported: diamond %d, gold %d, silver %d, bronze %d products; exchange %d items (%d grab bags)\n",
		len(c.Chests[0]), len(c.Chests[1]), len(c.Chests[2]), len(c.Chests[3]), len(c.Exchange), grabBags(c))
	return nil
}

func grabBags(c *Catalog) int {
	n := 0
	for _, e := range c.Exchange {
		if e.GrabBag != nil {
			n++
		}
	}
	return n
}

// catalogView is a stored catalog with the indexes the handlers use. It is
// never modified once built, so drops carry it into the actor.
type catalogView struct {
	version  uint64 // catalogVersion when it was read
	cat      *Catalog
	exchange map[int64]int // product id -> index in cat.Exchange
	// exchangeItems is the exchange list's items, PHP-encoded on the first
	// list of this catalog version and reused by every list after it (the
	// items are the same for every account; ~250 µs of encoding per list at
	// 1,000 items otherwise).
	exchangeItems func() (encodedPHP, error)
}

func newView(version uint64, c *Catalog) *catalogView {
	v := &catalogView{version: version, cat: c, exchange: make(map[int64]int, len(c.Exchange))}
	for i, e := range c.Exchange {
		v.exchange[e.Product.ID] = i
	}
	v.exchangeItems = sync.OnceValues(func() (encodedPHP, error) {
		items := make([]exchangeItem, len(c.Exchange))
		for i, e := range c.Exchange {
			p := e.Product
			items[i] = exchangeItem{ID: strconv.Itoa(i + 1), Cost: itoa(e.Cost), ProductID: itoa(p.ID),
				Name: p.Name, Type: p.Type, LocalPath: p.LocalPath}
		}
		b, err := wire.Marshal(items)
		return encodedPHP(b), err
	})
	return v
}

// encodedPHP is a value encoded once, written as it is into every reply
// that carries it.
type encodedPHP []byte

// AppendPHP implements wire.Marshaler.
func (e encodedPHP) AppendPHP(dst []byte) ([]byte, error) { return append(dst, e...), nil }

// chest returns the products of chest tier t in catalog order.
func (v *catalogView) chest(t plinkoapi.Tier) []Product {
	if !t.IsChest() {
		return nil
	}
	return v.cat.Chests[t-1]
}

// catalogCache holds the decoded catalog. Every catalog write goes through
// the registry actor of this process, which bumps a version: a request
// compares versions instead of reading storage.
type catalogCache struct {
	sys *actors.System
	v   atomic.Pointer[catalogView]
	mu  sync.Mutex // one decode at a time
}

// get returns the current catalog view; a database without a catalog reads
// as an empty one: every chest is empty, so drops pay tickets and the
// exchange lists nothing.
func (c *catalogCache) get() (*catalogView, error) {
	version := catalogVersion(c.sys)
	if v := c.v.Load(); v != nil && v.version == version {
		return v, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v := c.v.Load(); v != nil && v.version == version {
		return v, nil
	}
	// Read the version before the catalog: a write landing in between
	// leaves a view with the older version, which the next request
	// replaces.
	cat, err := StoredCatalog(c.sys.DB())
	if errors.Is(err, storage.ErrNotFound) {
		cat = &Catalog{}
	} else if err != nil {
		return nil, err
	}
	v := newView(version, cat)
	c.v.Store(v)
	return v, nil
}
