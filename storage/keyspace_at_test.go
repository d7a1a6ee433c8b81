package storage

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

var fixedKS = NewAccountKeyspaceAt[string]("test.fixed", "z/", rawCodec{})

// A keyspace declared at a fixed prefix keeps its records at exactly
// <prefix><id:4><key>, reads them back, and sizes them without decoding.
func TestAccountKeyspaceAt(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		b := db.NewBatch()
		for _, r := range []struct {
			id   AccountID
			k, v string
		}{{7, "b", "bbb"}, {7, "a", "a"}, {8, "a", "other"}} {
			if err := fixedKS.Put(batchWriter{b, r.id}, r.k, r.v); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		raw, err := db.get([]byte("z/\x00\x00\x00\x07b"))
		if err != nil || !bytes.Equal(raw, []byte("bbb")) {
			t.Fatalf("raw key z/<7>b = %q, %v", raw, err)
		}
		if v, err := fixedKS.Get(db, 7, "a"); err != nil || v != "a" {
			t.Errorf("Get = %q, %v", v, err)
		}
		sizes := map[string]int{}
		if err := fixedKS.EachSize(db, 7, func(k string, n int) error { sizes[k] = n; return nil }); err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{"a": 1, "b": 3}; !reflect.DeepEqual(sizes, want) {
			t.Errorf("EachSize = %v, want %v", sizes, want)
		}
		var all []string
		if err := fixedKS.EachAll(db, func(id AccountID, k, v string) error {
			all = append(all, fmt.Sprintf("%d/%s=%s", id, k, v))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if want := []string{"7/a=a", "7/b=bbb", "8/a=other"}; !reflect.DeepEqual(all, want) {
			t.Errorf("EachAll = %v, want %v", all, want)
		}
	})
}

// A fixed prefix storage uses, one already taken, or one of the wrong
// form is refused at declaration.
func TestAccountKeyspaceAtRefuses(t *testing.T) {
	for i, prefix := range []string{"a/", "x/", "i/", "z/", "cc/", "C/", "c"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("prefix %q accepted", prefix)
				}
			}()
			NewAccountKeyspaceAt[string](fmt.Sprintf("test.refused%d", i), prefix, rawCodec{})
		}()
	}
}
