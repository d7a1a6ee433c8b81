package storage

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
)

// Every key prefix and every value encoding of the database lives in this
// file. Prefixes are one byte plus '/', so that a prefix scan of one kind never
// touches another.
//
//	a/<id:4>                 Account (JSON, format byte first)
//	l/<login>                AccountID of a login (4 bytes)
//	u/<super:4><id:4>        sub-account index entry (empty value)
//	s/<cookie>               Session (JSON)
//	c/<id:4><bucket>         CloudObject (uvarint meta length, meta JSON, zip bytes)
//	m/<name>                 metadata (next account id, generated secrets, catalog ...)
const (
	prefixAccount = "a/"
	prefixLogin   = "l/"
	prefixSub     = "u/"
	prefixSession = "s/"
	prefixCloud   = "c/"
	prefixMeta    = "m/"
)

// Metadata names kept under the m/ prefix.
const (
	metaNextAccountID = "next_account_id"
	metaCatalog       = "plinko_catalog" // Catalog (JSON)
)

// formatV1 is the first byte of every JSON-encoded value: a later format can
// be told apart without guessing.
const formatV1 = 1

func accountKey(id AccountID) []byte { return appendID([]byte(prefixAccount), id) }
func loginKey(login string) []byte   { return append([]byte(prefixLogin), login...) }
func subKey(super, id AccountID) []byte {
	return appendID(appendID([]byte(prefixSub), super), id)
}
func subPrefix(super AccountID) []byte { return appendID([]byte(prefixSub), super) }
func sessionKey(cookie string) []byte  { return append([]byte(prefixSession), cookie...) }
func metaKey(name string) []byte       { return append([]byte(prefixMeta), name...) }
func cloudPrefix(id AccountID) []byte  { return appendID([]byte(prefixCloud), id) }
func cloudKey(id AccountID, bucket string) []byte {
	return append(cloudPrefix(id), bucket...)
}

func appendID(b []byte, id AccountID) []byte { return binary.BigEndian.AppendUint32(b, uint32(id)) }

func decodeID(b []byte) (AccountID, error) {
	if len(b) != 4 {
		return 0, fmt.Errorf("%w: account id of %d bytes", ErrCorrupt, len(b))
	}
	return AccountID(binary.BigEndian.Uint32(b)), nil
}

// prefixEnd returns the smallest key greater than every key with prefix p.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil // prefix of all 0xff: no upper bound
}

func encodeJSON(v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append([]byte{formatV1}, body...), nil
}

func decodeJSON(b []byte, v any) error {
	if len(b) == 0 || b[0] != formatV1 {
		return fmt.Errorf("%w: unknown value format", ErrCorrupt)
	}
	if err := json.Unmarshal(b[1:], v); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return nil
}

// cloudMeta is the part of a CloudObject stored before the raw archive bytes,
// so that the archive is kept byte for byte without base64 inflation.
type cloudMeta struct {
	AccountID  AccountID
	Bucket     string
	ModifyTime string
	Stored     int64 // unix nanoseconds
}

func encodeCloud(o *CloudObject) ([]byte, error) {
	meta, err := json.Marshal(cloudMeta{o.AccountID, o.Bucket, o.ModifyTime, o.Stored.UnixNano()})
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 1+binary.MaxVarintLen64+len(meta)+len(o.Data))
	b = append(b, formatV1)
	b = binary.AppendUvarint(b, uint64(len(meta)))
	b = append(b, meta...)
	return append(b, o.Data...), nil
}

func decodeCloud(b []byte, withData bool) (*CloudObject, error) {
	if len(b) == 0 || b[0] != formatV1 {
		return nil, fmt.Errorf("%w: unknown cloud value format", ErrCorrupt)
	}
	n, w := binary.Uvarint(b[1:])
	if w <= 0 || uint64(len(b)-1-w) < n {
		return nil, fmt.Errorf("%w: cloud meta length", ErrCorrupt)
	}
	var m cloudMeta
	if err := json.Unmarshal(b[1+w:1+w+int(n)], &m); err != nil {
		return nil, fmt.Errorf("%w: cloud meta: %v", ErrCorrupt, err)
	}
	o := &CloudObject{AccountID: m.AccountID, Bucket: m.Bucket, ModifyTime: m.ModifyTime, Stored: unixNano(m.Stored)}
	if withData {
		o.Data = append([]byte(nil), b[1+w+int(n):]...)
	}
	return o, nil
}
