package plinko

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/honmaster/masterserver/wire"
)

// TestExchangeListEncodedOnce: a catalog version's exchange items are
// encoded once, and the reply built from them is byte for byte the one
// encoding the items on every request gave.
func TestExchangeListEncodedOnce(t *testing.T) {
	v := testView(t)
	if len(v.cat.Exchange) == 0 {
		t.Fatal("the test catalog has no exchange items")
	}
	first, err := v.exchangeItems()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := v.exchangeItems()
	if &first[0] != &again[0] {
		t.Error("the items were encoded again for the second list")
	}
	items := make([]exchangeItem, len(v.cat.Exchange))
	for i, e := range v.cat.Exchange {
		p := e.Product
		items[i] = exchangeItem{ID: strconv.Itoa(i + 1), Cost: itoa(e.Cost), ProductID: itoa(p.ID),
			Name: p.Name, Type: p.Type, LocalPath: p.LocalPath}
	}
	want, err := wire.Marshal(exchangeReply{StatusCode: int(StatusExchangeOK), Items: items, UserTickets: "1234"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := wire.Marshal(exchangeListReply{StatusCode: int(StatusExchangeOK), Items: first, UserTickets: "1234"})
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("list reply differs from the per-request encoding (%v):\n got %s\nwant %s", err, got, want)
	}
	// A new catalog version is a new view, encoded afresh.
	if other, _ := newView(1, v.cat).exchangeItems(); &other[0] == &first[0] {
		t.Error("a new catalog version reused the old encoding")
	}
}
