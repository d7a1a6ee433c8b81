package storage

import (
	"fmt"
	"slices"
	"testing"
)

type rawCodec struct{}

func (rawCodec) Encode(s string) ([]byte, error) { return []byte(s), nil }
func (rawCodec) Decode(b []byte) (string, error) { return string(b), nil }

type batchWriter struct {
	b  *Batch
	id AccountID
}

func (w batchWriter) AccountWrites() *AccountWrites { return w.b.ForAccount(w.id) }

var (
	eachAllKS    = NewAccountKeyspace[string]("test.eachall", rawCodec{})
	eachAllOther = NewAccountKeyspace[string]("test.eachall2", rawCodec{})
)

// EachAll visits every account's records of one keyspace, in (account, key)
// order, and nothing of another keyspace whose name it prefixes.
func TestEachAll(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		b := db.NewBatch()
		for _, r := range []struct {
			id    AccountID
			k, v  string
			other bool
		}{{2, "b", "2b", false}, {1, "z", "1z", false}, {2, "a", "2a", false}, {300, "a", "300a", false}, {1, "a", "other", true}} {
			ks := eachAllKS
			if r.other {
				ks = eachAllOther
			}
			if err := ks.Put(batchWriter{b, r.id}, r.k, r.v); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		var got []string
		err := eachAllKS.EachAll(db, func(id AccountID, k, v string) error {
			got = append(got, fmt.Sprintf("%d/%s=%s", id, k, v))
			return nil
		})
		if want := []string{"1/z=1z", "2/a=2a", "2/b=2b", "300/a=300a"}; err != nil || !slices.Equal(got, want) {
			t.Errorf("EachAll = %v, %v; want %v", got, err, want)
		}
	})
}
