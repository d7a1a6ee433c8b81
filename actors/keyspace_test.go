package actors

import (
	"context"
	"errors"
	"testing"

	"github.com/honmaster/masterserver/storage"
)

// text is a test codec: records are plain strings.
type text struct{}

func (text) Encode(s string) ([]byte, error) { return []byte(s), nil }
func (text) Decode(b []byte) (string, error) { return string(b), nil }

var (
	testPerAccount = storage.NewAccountKeyspace[string]("test.marks", text{})
	testGlobal     = storage.NewGlobalKeyspace[string]("test.content", text{})
)

type mark struct{ key, value string }

func (m mark) Apply(tx *Tx) (any, error) { return nil, testPerAccount.Put(tx, m.key, m.value) }

type markThenFail struct{}

func (markThenFail) Apply(tx *Tx) (any, error) {
	_ = testPerAccount.Put(tx, "z", "never")
	return nil, errBroke
}

// TestKeyspaces: an area's per-account records are written by the
// account's change (scoped to that account), its global records by the
// global writer, and both read back by key and by prefix in key order.
func TestKeyspaces(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a, b := create(t, s, "A", ""), create(t, s, "B", "")
	for _, m := range []mark{{"g2", "up"}, {"g1", "down"}, {"h1", "x"}} {
		if _, err := s.Apply(ctx, a.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Apply(ctx, b.ID, mark{"g1", "b's"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(ctx, a.ID, markThenFail{}); !errors.Is(err, errBroke) {
		t.Fatal(err)
	}
	var got []string
	err := testPerAccount.Each(s.DB(), a.ID, "g", func(k, v string) error { got = append(got, k+"="+v); return nil })
	if err != nil || len(got) != 2 || got[0] != "g1=down" || got[1] != "g2=up" {
		t.Errorf("Each(a, g) = %v, %v", got, err)
	}
	if v, err := testPerAccount.Get(s.DB(), b.ID, "g1"); err != nil || v != "b's" {
		t.Errorf("Get(b, g1) = %q, %v", v, err)
	}
	if _, err := testPerAccount.Get(s.DB(), a.ID, "z"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("a failed change's record was written: %v", err)
	}
	_, err = s.UpdateGlobal(ctx, func(g *GlobalTx) (any, error) {
		for _, k := range []string{"q/2", "q/1", "r/1"} {
			if err := testGlobal.Put(g, k, "v"+k); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	err = testGlobal.Each(s.DB(), "q/", func(k, v string) error { got = append(got, k); return nil })
	if err != nil || len(got) != 2 || got[0] != "q/1" || got[1] != "q/2" {
		t.Errorf("global Each(q/) = %v, %v", got, err)
	}
	if _, err := s.UpdateGlobal(ctx, func(g *GlobalTx) (any, error) {
		testGlobal.Delete(g, "r/1")
		return nil, errBroke
	}); !errors.Is(err, errBroke) {
		t.Fatal(err)
	}
	if _, err := testGlobal.Get(s.DB(), "r/1"); err != nil {
		t.Errorf("a failed global update deleted a record: %v", err)
	}
}
