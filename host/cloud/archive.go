package cloud

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/honmaster/masterserver/host/cloud/internal/cloudpb"
	"github.com/honmaster/masterserver/storage"
)

// Archive is one stored settings archive, per account and bucket: the
// record of the keyspace archives.
type Archive struct {
	AccountID  storage.AccountID // the owner; the writing actor's account
	Bucket     string
	ModifyTime string // client-supplied "YYYY-MM-DD hh:mm:ss"
	Stored     time.Time
	Data       []byte // the zip archive, byte for byte as uploaded
}

// archives holds every account's archives, keyed (account, bucket), written
// only by the account's actor (storeObject). They keep the key prefix
// storage gave them before areas declared their own keyspaces
// (c/<id:4><bucket>). A record is a format byte, the uvarint length of a
// header, the header, then the archive bytes, unencoded (the archive is
// kept byte for byte, without base64 inflation). The format byte says what
// the header is:
//
//	2  a protobuf ArchiveHeader (proto/cloud_records.proto): what Encode writes
//	1  a JSON archiveHeader: what earlier versions wrote, since schema version 1
//
// Format 1 stays readable so that data directories written by earlier
// versions serve their archives unchanged, with no migration: a bucket's
// record is rewritten as format 2 on its next store, and one never stored
// again stays format 1 and reads as before. Format 2 replaced JSON because
// encoding/json (reflection and its type cache) was ~6% of the server's CPU
// under stores.
var archives = storage.NewAccountKeyspaceAt[*Archive]("cloud.archive", "c/", archiveCodec{})

// The record formats (a record's first byte; see archives).
const (
	archiveFormatJSON  = 1 // read only
	archiveFormatProto = 2
)

// archiveHeader is the JSON header of format 1, as earlier versions wrote
// it (json.Marshal of this struct); only decoded now.
type archiveHeader struct {
	AccountID  storage.AccountID
	Bucket     string
	ModifyTime string
	Stored     int64 // unix nanoseconds
}

type archiveCodec struct{}

// header is a's format-2 header.
func header(a *Archive) *cloudpb.ArchiveHeader {
	h := &cloudpb.ArchiveHeader{AccountId: uint32(a.AccountID), Bucket: a.Bucket, ModifyTime: a.ModifyTime}
	if !a.Stored.IsZero() {
		h.StoredUnixNano = a.Stored.UnixNano()
	}
	return h
}

// storedSize is the size of a's record once stored (what Sizes reports),
// computed without encoding it.
func storedSize(a *Archive) int64 { return int64(recordSize(proto.Size(header(a)), a)) }

// recordSize is the size of a's record with a header of n bytes.
func recordSize(n int, a *Archive) int {
	var length [binary.MaxVarintLen64]byte
	return 1 + binary.PutUvarint(length[:], uint64(n)) + n + len(a.Data)
}

// encodeArchive returns a's record in format 2, in one buffer allocated at
// its exact size.
func encodeArchive(a *Archive) ([]byte, error) {
	h := header(a)
	n := proto.Size(h)
	return appendRecord(make([]byte, 0, recordSize(n, a)), a, h, n)
}

func (archiveCodec) Encode(a *Archive) ([]byte, error) { return encodeArchive(a) }

// EncodedSize and AppendEncoded make the codec a storage.Appender: a store
// writes its record straight into the batch, so the archive bytes are
// copied once, from the request into the batch.
func (archiveCodec) EncodedSize(a *Archive) (int, error) { return int(storedSize(a)), nil }

func (archiveCodec) AppendEncoded(dst []byte, a *Archive) ([]byte, error) {
	h := header(a)
	return appendRecord(dst, a, h, proto.Size(h))
}

// appendRecord appends a's record, whose header h is n bytes (proto.Size
// cached it in h).
func appendRecord(dst []byte, a *Archive, h *cloudpb.ArchiveHeader, n int) ([]byte, error) {
	dst = binary.AppendUvarint(append(dst, archiveFormatProto), uint64(n))
	start := len(dst)
	dst, err := proto.MarshalOptions{UseCachedSize: true}.MarshalAppend(dst, h)
	if err != nil {
		return nil, fmt.Errorf("cloud archive header: %w", err)
	}
	if len(dst)-start != n {
		return nil, fmt.Errorf("cloud archive header: %d bytes encoded, %d expected", len(dst)-start, n)
	}
	return append(dst, a.Data...), nil
}

func (archiveCodec) Decode(b []byte) (*Archive, error) {
	a, data, err := decodeHeader(b)
	if err != nil {
		return nil, err
	}
	a.Data = append([]byte(nil), data...)
	return a, nil
}

// decodeHeader decodes a stored archive's header (either format) into an
// Archive without Data, and returns the archive bytes that follow it (a
// slice of b, not a copy).
func decodeHeader(b []byte) (*Archive, []byte, error) {
	if len(b) == 0 || (b[0] != archiveFormatProto && b[0] != archiveFormatJSON) {
		return nil, nil, fmt.Errorf("%w: unknown cloud archive format", storage.ErrCorrupt)
	}
	n, w := binary.Uvarint(b[1:])
	if w <= 0 || uint64(len(b)-1-w) < n {
		return nil, nil, fmt.Errorf("%w: cloud archive header length", storage.ErrCorrupt)
	}
	header, data := b[1+w:1+w+int(n)], b[1+w+int(n):]
	var a *Archive
	var err error
	if b[0] == archiveFormatProto {
		a, err = decodeProtoHeader(header)
	} else {
		a, err = decodeJSONHeader(header)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: cloud archive header: %v", storage.ErrCorrupt, err)
	}
	return a, data, nil
}

func decodeProtoHeader(b []byte) (*Archive, error) {
	var h cloudpb.ArchiveHeader
	if err := proto.Unmarshal(b, &h); err != nil {
		return nil, err
	}
	return newArchive(storage.AccountID(h.AccountId), h.Bucket, h.ModifyTime, h.StoredUnixNano), nil
}

func decodeJSONHeader(b []byte) (*Archive, error) {
	var h archiveHeader
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, err
	}
	return newArchive(h.AccountID, h.Bucket, h.ModifyTime, h.Stored), nil
}

// newArchive is a decoded header's Archive; stored is in unix nanoseconds,
// 0 for none.
func newArchive(id storage.AccountID, bucket, modifyTime string, stored int64) *Archive {
	a := &Archive{AccountID: id, Bucket: bucket, ModifyTime: modifyTime}
	if stored != 0 {
		a.Stored = time.Unix(0, stored).UTC()
	}
	return a
}

// archive reads the archive of an account's bucket; storage.ErrNotFound
// when there is none.
func archive(db *storage.DB, id storage.AccountID, bucket string) (*Archive, error) {
	return archives.Get(db, id, bucket)
}

// archiveMeta reads an archive's header only (Data nil), without copying
// the archive bytes; storage.ErrNotFound when there is none.
func archiveMeta(db *storage.DB, id storage.AccountID, bucket string) (*Archive, error) {
	var a *Archive
	err := archives.View(db, id, bucket, func(b []byte) (err error) {
		a, _, err = decodeHeader(b)
		return err
	})
	return a, err
}

// Sizes returns the stored size in bytes (archive and header) of each
// bucket of an account, as the quota counts it. It decodes nothing.
func Sizes(db *storage.DB, id storage.AccountID) (map[string]int64, error) {
	sizes := map[string]int64{}
	err := archives.EachSize(db, id, func(bucket string, n int) error {
		sizes[bucket] = int64(n)
		return nil
	})
	return sizes, err
}
