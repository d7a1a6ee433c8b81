package plinko

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// Product is one prize or exchange item. Granting it gives the account the
// upgrade Upgrade (e.g. "aa.Hero_Pyromancer.Alt2").
type Product struct {
	ID        int64
	Name      string // e.g. "Hero_Pyromancer.Alt2"
	Type      string // e.g. "Alt Avatar"; chest listings use ShortType
	ShortType string // e.g. "aa"
	LocalPath string // texture path shown by the client
	Upgrade   string
}

// ExchangeItem is one item of the ticket exchange.
type ExchangeItem struct {
	Product Product
	Cost    int64    // tickets
	GrabBag *GrabBag // non-nil: buying it grants every product of the bag
}

// GrabBag is a themed bundle sold in the ticket exchange.
type GrabBag struct {
	Theme    string // default, christmas, esports, celebrate, halloween
	Products []Product
}

// Catalog is the Plinko prize catalog: the prizes of each chest tier and the
// ticket exchange. Operators import it; the global writer (the registry
// actor) stores it.
type Catalog struct {
	Chests     [4][]Product // index tier-1: Diamond, Gold, Silver, Bronze
	Exchange   []ExchangeItem
	LastUpdate [6]int64 // unix seconds per tier 1..6, for the client's "new" marker
}

// catalogRecords is the global keyspace of the catalog: one record, key "".
// The catalog is one small record written on import and decoded once per
// write (catalogCache), so it keeps its schema version 1 encoding (format
// byte 1, JSON), which the storage migration moved here unchanged.
var catalogRecords = storage.NewGlobalKeyspace[*Catalog]("plinko.catalog", catalogCodec{})

type catalogCodec struct{}

const catalogRecordFormat = 1

func (catalogCodec) Encode(c *Catalog) ([]byte, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return append([]byte{catalogRecordFormat}, b...), nil
}

func (catalogCodec) Decode(b []byte) (*Catalog, error) {
	if len(b) == 0 || b[0] != catalogRecordFormat {
		return nil, fmt.Errorf("%w: unknown catalog format", storage.ErrCorrupt)
	}
	var c Catalog
	if err := json.Unmarshal(b[1:], &c); err != nil {
		return nil, fmt.Errorf("%w: %v", storage.ErrCorrupt, err)
	}
	return &c, nil
}

// PutCatalog replaces the stored catalog (through the global writer).
func PutCatalog(ctx context.Context, sys *actors.System, c *Catalog) error {
	_, err := sys.UpdateGlobal(ctx, func(g *actors.GlobalTx) (any, error) {
		return nil, catalogRecords.Put(g, "", c)
	})
	return err
}

// StoredCatalog reads the stored catalog; storage.ErrNotFound when none was
// imported.
func StoredCatalog(db *storage.DB) (*Catalog, error) { return catalogRecords.Get(db, "") }

// catalogVersion changes whenever this process writes the catalog.
func catalogVersion(sys *actors.System) uint64 { return sys.GlobalVersion(catalogRecords.Name()) }
