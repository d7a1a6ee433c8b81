package cloud

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

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
// only by the account's actor (storeObject). They keep the key prefix and
// value format storage gave them before areas declared their own
// keyspaces (c/<id:4><bucket>; a format byte 1, the uvarint length of a
// JSON header, then the archive bytes, unencoded), so data directories
// written since schema version 1 serve them unchanged, with no migration.
var archives = storage.NewAccountKeyspaceAt[*Archive]("cloud.archive", "c/", archiveCodec{})

// archiveHeader is the part of an Archive stored before the raw archive
// bytes, so that the archive is kept byte for byte without base64 inflation.
type archiveHeader struct {
	AccountID  storage.AccountID
	Bucket     string
	ModifyTime string
	Stored     int64 // unix nanoseconds
}

type archiveCodec struct{}

const archiveFormat = 1

func (a *Archive) header() ([]byte, error) {
	return json.Marshal(archiveHeader{a.AccountID, a.Bucket, a.ModifyTime, a.Stored.UnixNano()})
}

// storedSize is the size of a's record once stored: what Sizes reports.
func storedSize(a *Archive) (int64, error) {
	h, err := a.header()
	if err != nil {
		return 0, err
	}
	return int64(1 + len(binary.AppendUvarint(nil, uint64(len(h)))) + len(h) + len(a.Data)), nil
}

func (archiveCodec) Encode(a *Archive) ([]byte, error) {
	h, err := a.header()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 1+binary.MaxVarintLen64+len(h)+len(a.Data))
	b = append(b, archiveFormat)
	b = binary.AppendUvarint(b, uint64(len(h)))
	b = append(b, h...)
	return append(b, a.Data...), nil
}

func (archiveCodec) Decode(b []byte) (*Archive, error) {
	a, data, err := decodeHeader(b)
	if err != nil {
		return nil, err
	}
	a.Data = append([]byte(nil), data...)
	return a, nil
}

// decodeHeader decodes a stored archive's header into an Archive without
// Data, and returns the archive bytes that follow it (a slice of b).
func decodeHeader(b []byte) (*Archive, []byte, error) {
	if len(b) == 0 || b[0] != archiveFormat {
		return nil, nil, fmt.Errorf("%w: unknown cloud archive format", storage.ErrCorrupt)
	}
	n, w := binary.Uvarint(b[1:])
	if w <= 0 || uint64(len(b)-1-w) < n {
		return nil, nil, fmt.Errorf("%w: cloud archive header length", storage.ErrCorrupt)
	}
	var h archiveHeader
	if err := json.Unmarshal(b[1+w:1+w+int(n)], &h); err != nil {
		return nil, nil, fmt.Errorf("%w: cloud archive header: %v", storage.ErrCorrupt, err)
	}
	a := &Archive{AccountID: h.AccountID, Bucket: h.Bucket, ModifyTime: h.ModifyTime}
	if h.Stored != 0 {
		a.Stored = time.Unix(0, h.Stored).UTC()
	}
	return a, b[1+w+int(n):], nil
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
