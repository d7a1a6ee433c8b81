package storage

import (
	"errors"
	"testing"
)

// appendCodec is rawCodec as an Appender; short makes it write one byte
// less than it said.
type appendCodec struct{ short bool }

func (appendCodec) Encode(s string) ([]byte, error)   { return []byte(s), nil }
func (appendCodec) Decode(b []byte) (string, error)   { return string(b), nil }
func (appendCodec) EncodedSize(s string) (int, error) { return len(s), nil }
func (c appendCodec) AppendEncoded(dst []byte, s string) ([]byte, error) {
	if c.short {
		s = s[1:]
	}
	return append(dst, s...), nil
}

var (
	appendKS = NewAccountKeyspace[string]("test.append", appendCodec{})
	shortKS  = NewAccountKeyspace[string]("test.short", appendCodec{short: true})
)

// An Appender's record is written straight into the batch and reads back;
// one that writes other than the size it gave fails its Put and the whole
// batch, so nothing of it is stored.
func TestAppenderPut(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		b := db.NewBatch()
		if err := appendKS.Put(batchWriter{b, 7}, "k", "value"); err != nil {
			t.Fatal(err)
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		if v, err := appendKS.Get(db, 7, "k"); err != nil || v != "value" {
			t.Fatalf("Get = %q, %v", v, err)
		}

		b = db.NewBatch()
		if err := appendKS.Put(batchWriter{b, 8}, "k", "kept?"); err != nil {
			t.Fatal(err)
		}
		if err := shortKS.Put(batchWriter{b, 8}, "k", "short"); err == nil {
			t.Fatal("Put of a record shorter than its size succeeded")
		}
		if err := db.Commit(b); err == nil {
			t.Fatal("Commit of a batch with a failed record succeeded")
		}
		if _, err := appendKS.Get(db, 8, "k"); !errors.Is(err, ErrNotFound) {
			t.Errorf("a record of the failed batch was stored: %v", err)
		}
	})
}
