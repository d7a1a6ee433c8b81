package storage

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
)

// cloudMeta is the part of a CloudObject stored before the raw archive bytes,
// so that the archive is kept byte for byte without base64 inflation. (Its
// format is unchanged since schema version 1: format byte 1.)
type cloudMeta struct {
	AccountID  AccountID
	Bucket     string
	ModifyTime string
	Stored     int64 // unix nanoseconds
}

func encodeCloud(o *CloudObject) ([]byte, error) {
	meta, err := cloudMetaJSON(o)
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

// CloudSize is the size DB.CloudSizes reports for o once stored: its
// metadata and archive as written by Batch.PutCloud (with o.AccountID as
// it is then).
func CloudSize(o *CloudObject) (int64, error) {
	meta, err := cloudMetaJSON(o)
	if err != nil {
		return 0, err
	}
	var tmp [binary.MaxVarintLen64]byte
	return int64(1 + binary.PutUvarint(tmp[:], uint64(len(meta))) + len(meta) + len(o.Data)), nil
}

func cloudMetaJSON(o *CloudObject) ([]byte, error) {
	return json.Marshal(cloudMeta{o.AccountID, o.Bucket, o.ModifyTime, o.Stored.UnixNano()})
}
