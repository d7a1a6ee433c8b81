package cloud

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/honmaster/masterserver/storage"
)

// FuzzArchiveDecode decodes arbitrary stored values as archive records, of
// either format: decoding never panics and fails only with
// storage.ErrCorrupt, the header-only decode (decodeHeader) agrees with the
// whole one, and a decoded archive re-encodes (as format 2) and decodes to
// the same value.
func FuzzArchiveDecode(f *testing.F) {
	header := `{"AccountID":1,"Bucket":"hon-game-configs","ModifyTime":"2024-01-02 03:04:05","Stored":1700000001000000005}`
	f.Add(append(append([]byte{1, byte(len(header))}, header...), "PK\x03\x04"...))
	for _, a := range []*Archive{testArchive(), {AccountID: 7, Bucket: "b"}} {
		rec, err := encodeArchive(a)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(rec)
	}
	f.Add([]byte{2, 2, 0x08, 0x80})
	f.Add([]byte{1, 4, 'n', 'u', 'l', 'l'})
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := archiveCodec{}.Decode(b)
		meta, data, herr := decodeHeader(b)
		if (err == nil) != (herr == nil) {
			t.Fatalf("Decode err %v, decodeHeader err %v", err, herr)
		}
		if err != nil {
			if !errors.Is(err, storage.ErrCorrupt) {
				t.Fatalf("Decode err %v, want ErrCorrupt", err)
			}
			return
		}
		if !bytes.Equal(data, a.Data) {
			t.Fatalf("decodeHeader's archive bytes %q, Decode's %q", data, a.Data)
		}
		meta.Data = a.Data
		if !reflect.DeepEqual(meta, a) {
			t.Fatalf("decodeHeader %+v, Decode %+v", meta, a)
		}
		rec, err := archiveCodec{}.Encode(a)
		if err != nil {
			t.Fatalf("Encode(%+v): %v", a, err)
		}
		if rec[0] != archiveFormatProto || len(rec) != cap(rec) {
			t.Fatalf("Encode = %q (cap %d)", rec, cap(rec))
		}
		back, err := archiveCodec{}.Decode(rec)
		if err != nil || !reflect.DeepEqual(back, a) {
			t.Fatalf("Decode(Encode(%+v)) = %+v, %v", a, back, err)
		}
	})
}
