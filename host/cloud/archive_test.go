package cloud

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/honmaster/masterserver/storage"
)

// testArchive is an archive as a store writes it.
func testArchive() *Archive {
	return &Archive{AccountID: 1, Bucket: "hon-game-configs", ModifyTime: "2024-01-02 03:04:05",
		Stored: time.Unix(1700000001, 5).UTC(), Data: []byte("PK\x03\x04 zip bytes \x00\xff")}
}

// Records of format 1 (written by earlier versions, and by storage before
// the keyspace moved here: format byte 1, uvarint header length, JSON
// header, raw zip bytes) still decode. The bytes below are what that code
// wrote for testArchive (json.Marshal of archiveHeader).
func TestArchiveFormat1Decodes(t *testing.T) {
	a := testArchive()
	header := `{"AccountID":1,"Bucket":"hon-game-configs","ModifyTime":"2024-01-02 03:04:05","Stored":1700000001000000005}`
	rec := append(append([]byte{1, byte(len(header))}, header...), a.Data...)
	back, err := archiveCodec{}.Decode(rec)
	if err != nil || !reflect.DeepEqual(back, a) {
		t.Fatalf("Decode = %+v, %v\nwant %+v", back, err, a)
	}
	checkHeaderOnly(t, rec, a)
	rec[len(rec)-1] = 'X' // the decoded archive owns its bytes
	if back.Data[len(back.Data)-1] != 0xff {
		t.Error("decoded archive aliases the stored value")
	}
	// Rewritten on the next store, it is format 2 and decodes the same.
	again, err := archiveCodec{}.Encode(back)
	if err != nil || again[0] != archiveFormatProto {
		t.Fatalf("Encode = %q, %v", again, err)
	}
	if back2, err := (archiveCodec{}).Decode(again); err != nil || !reflect.DeepEqual(back2, a) {
		t.Fatalf("Decode(Encode) = %+v, %v", back2, err)
	}
}

// New records are format 2: format byte 2, uvarint header length, the
// protobuf ArchiveHeader, raw zip bytes. The expected bytes are built here
// field by field (protowire), not with the generated code.
func TestArchiveFormat2(t *testing.T) {
	a := testArchive()
	var h []byte
	h = protowire.AppendTag(h, 1, protowire.VarintType)
	h = protowire.AppendVarint(h, 1)
	h = protowire.AppendTag(h, 2, protowire.BytesType)
	h = protowire.AppendString(h, a.Bucket)
	h = protowire.AppendTag(h, 3, protowire.BytesType)
	h = protowire.AppendString(h, a.ModifyTime)
	h = protowire.AppendTag(h, 4, protowire.VarintType)
	h = protowire.AppendVarint(h, uint64(a.Stored.UnixNano()))
	want := append(append([]byte{2, byte(len(h))}, h...), a.Data...)
	got, err := archiveCodec{}.Encode(a)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Encode = %q, %v\nwant %q", got, err, want)
	}
	if len(got) != cap(got) {
		t.Errorf("record of %d bytes in a buffer of %d: not sized up front", len(got), cap(got))
	}
	// The quota's size, computed without encoding, is the record's.
	if n := storedSize(a); n != int64(len(got)) {
		t.Errorf("storedSize = %d, the record has %d bytes", n, len(got))
	}
	back, err := archiveCodec{}.Decode(got)
	if err != nil || !reflect.DeepEqual(back, a) {
		t.Fatalf("Decode = %+v, %v", back, err)
	}
	checkHeaderOnly(t, got, a)
	got[len(got)-1] = 'X'
	if back.Data[len(back.Data)-1] != 0xff {
		t.Error("decoded archive aliases the stored value")
	}

	// No Stored time and no archive bytes: both stay empty.
	empty := &Archive{AccountID: 7, Bucket: "b"}
	got, err = archiveCodec{}.Encode(empty)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := (archiveCodec{}).Decode(got); err != nil || !reflect.DeepEqual(back, empty) {
		t.Fatalf("Decode = %+v, %v, want %+v", back, err, empty)
	}
}

// checkHeaderOnly checks that decodeHeader reads rec's header as a's and
// returns the archive bytes as a slice of rec, not a copy.
func checkHeaderOnly(t *testing.T, rec []byte, a *Archive) {
	t.Helper()
	meta, data, err := decodeHeader(rec)
	if err != nil {
		t.Fatalf("decodeHeader: %v", err)
	}
	if want := (Archive{AccountID: a.AccountID, Bucket: a.Bucket, ModifyTime: a.ModifyTime, Stored: a.Stored}); !reflect.DeepEqual(*meta, want) {
		t.Errorf("decodeHeader = %+v, want %+v", meta, want)
	}
	if !bytes.Equal(data, a.Data) {
		t.Errorf("decodeHeader's archive bytes = %q, want %q", data, a.Data)
	}
	if len(data) > 0 && &data[0] != &rec[len(rec)-len(data)] {
		t.Error("decodeHeader copied the archive bytes")
	}
}

// Corrupt records, of either format, are storage.ErrCorrupt, whether the
// whole record or its header only is decoded.
func TestArchiveCorrupt(t *testing.T) {
	for _, bad := range [][]byte{
		nil,
		{0},
		{3, 0},
		{1, 200},
		{1, 3, '{', 'x', '}'},
		{1, 0},
		{1, 4, 'n', 'u', 'l'},
		{2},       // no header length
		{2, 0x80}, // truncated header length
		{2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, // header length overflows
		{2, 200, 0x08, 0x01},     // header length past the end
		{2, 1, 0x08},             // truncated field
		{2, 2, 0x08, 0x80},       // truncated varint
		{2, 2, 0x12, 0x05},       // string past the header's end
		{2, 3, 0x12, 0x01, 0xff}, // bucket not UTF-8
		{2, 2, 0x0f, 0x00},       // bad wire type
		{2, 2, 0x00, 0x00},       // field number 0
	} {
		if _, err := (archiveCodec{}).Decode(bad); !errors.Is(err, storage.ErrCorrupt) {
			t.Errorf("Decode(%q) err = %v, want ErrCorrupt", bad, err)
		}
		if _, _, err := decodeHeader(bad); !errors.Is(err, storage.ErrCorrupt) {
			t.Errorf("decodeHeader(%q) err = %v, want ErrCorrupt", bad, err)
		}
	}
}

// A store's encoding allocates the record, sized up front, and the header
// message, nothing else: the archive bytes are copied once, into the record.
func TestArchiveEncodeAllocs(t *testing.T) {
	a := testArchive()
	a.Data = bytes.Repeat([]byte{'z'}, 64<<10)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := encodeArchive(a); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 {
		t.Errorf("encodeArchive allocates %v times per call, want at most 2", allocs)
	}
}
