package cloud

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/honmaster/masterserver/storage"
)

// The archive's stored form is the one storage wrote before the keyspace
// moved here (format byte 1, uvarint header length, JSON header, raw zip
// bytes): the bytes below are what that code wrote for this archive.
func TestArchiveCodec(t *testing.T) {
	a := &Archive{AccountID: 1, Bucket: "hon-game-configs", ModifyTime: "2024-01-02 03:04:05",
		Stored: time.Unix(1700000001, 5).UTC(), Data: []byte("PK\x03\x04 zip bytes \x00\xff")}
	header := `{"AccountID":1,"Bucket":"hon-game-configs","ModifyTime":"2024-01-02 03:04:05","Stored":1700000001000000005}`
	want := append(append([]byte{1, byte(len(header))}, header...), a.Data...)
	got, err := archiveCodec{}.Encode(a)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Encode = %q, %v\nwant %q", got, err, want)
	}
	back, err := archiveCodec{}.Decode(got)
	if err != nil || !reflect.DeepEqual(back, a) {
		t.Fatalf("Decode = %+v, %v", back, err)
	}
	meta, data, err := decodeHeader(got)
	if err != nil || meta.Data != nil || !bytes.Equal(data, a.Data) || meta.ModifyTime != a.ModifyTime || !meta.Stored.Equal(a.Stored) {
		t.Fatalf("decodeHeader = %+v, %q, %v", meta, data, err)
	}
	got[len(got)-1] = 'X' // the decoded archive owns its bytes
	if back.Data[len(back.Data)-1] != 0xff {
		t.Error("decoded archive aliases the stored value")
	}
	for _, bad := range [][]byte{nil, {2}, {1, 200}, {1, 3, '{', 'x', '}'}} {
		if _, err := (archiveCodec{}).Decode(bad); !errors.Is(err, storage.ErrCorrupt) {
			t.Errorf("Decode(%q) err = %v, want ErrCorrupt", bad, err)
		}
	}
}
