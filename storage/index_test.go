package storage

import (
	"errors"
	"testing"
)

type strCodec struct{}

func (strCodec) Encode(s string) ([]byte, error) { return []byte(s), nil }
func (strCodec) Decode(b []byte) (string, error) {
	if string(b) == "bad" {
		return "", ErrCorrupt
	}
	return string(b), nil
}

type writerOf struct{ w *AccountWrites }

func (w writerOf) AccountWrites() *AccountWrites { return w.w }

// TestIndexKeyspace: entries of several writers under one index key do not
// collide, scan globally in key order then writer order, filter by any
// prefix, and commit in the writer's own batch with its other records.
var (
	testIndex      = NewIndexKeyspace[string]("test.index", strCodec{})
	testIndexOwner = NewAccountKeyspace[string]("test.indexowner", strCodec{})
)

func TestIndexKeyspace(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		idx, own := testIndex, testIndexOwner

		b := db.NewBatch()
		w7 := writerOf{b.ForAccount(7)}
		for _, e := range []struct{ key, v string }{{KeyUint32(2) + KeyUint32(1), "7:a"}, {KeyUint32(1) + KeyUint32(5), "7:b"}} {
			if err := idx.Put(w7, e.key, e.v); err != nil {
				t.Fatal(err)
			}
		}
		if err := own.Put(w7, "r", "record"); err != nil {
			t.Fatal(err)
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		b = db.NewBatch()
		if err := idx.Put(writerOf{b.ForAccount(3)}, KeyUint32(2)+KeyUint32(1), "3:a"); err != nil {
			t.Fatal(err)
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}

		type entry struct {
			key    string
			writer AccountID
			v      string
		}
		scan := func(prefix string) []entry {
			var out []entry
			if err := idx.Each(db, prefix, func(key string, writer AccountID, v string) error {
				out = append(out, entry{key, writer, v})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		all := scan("")
		want := []entry{{KeyUint32(1) + KeyUint32(5), 7, "7:b"}, {KeyUint32(2) + KeyUint32(1), 3, "3:a"}, {KeyUint32(2) + KeyUint32(1), 7, "7:a"}}
		if len(all) != len(want) {
			t.Fatalf("scan = %v, want %v", all, want)
		}
		for i := range want {
			if all[i] != want[i] {
				t.Errorf("entry %d = %+v, want %+v", i, all[i], want[i])
			}
		}
		if got := scan(KeyUint32(2)); len(got) != 2 || got[0].writer != 3 || got[1].writer != 7 {
			t.Errorf("scan(2) = %+v", got)
		}
		if got := scan(KeyUint32(9)); len(got) != 0 {
			t.Errorf("scan(9) = %+v, want none", got)
		}
		if v, err := own.Get(db, 7, "r"); err != nil || v != "record" {
			t.Errorf("owner's record = %q, %v", v, err)
		}

		b = db.NewBatch()
		idx.Delete(writerOf{b.ForAccount(7)}, KeyUint32(2)+KeyUint32(1))
		if err := idx.Put(writerOf{b.ForAccount(4)}, KeyUint32(3), "bad"); err != nil {
			t.Fatal(err)
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		if got := scan(KeyUint32(2)); len(got) != 1 || got[0].writer != 3 {
			t.Errorf("after delete: %+v, want only writer 3's entry", got)
		}
		err := idx.Each(db, "", func(string, AccountID, string) error { return nil })
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("corrupt entry: err = %v, want ErrCorrupt", err)
		}
	})
}
