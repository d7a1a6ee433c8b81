package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// The owners index (r/<id:4><key>, empty values) lists, per account, the
// entries it owns in the shared indexes: its index keyspace entries
// (i/<keyspace>/<key><id:4>) and its look-alike skeleton entry
// (k/<skeleton>). Those indexes are ordered by what they index (a
// nickname, a skeleton, a report's time), not by account, so without it
// finding one account's entries meant scanning every account's: deleting
// one account of a million read some three million keys (seconds of CPU,
// and 256 deletions in a row starved the plugin processes on a pinned
// core into missed pings and restarts). Each owners entry is written and
// deleted in the same batch as the entry it names.

// ownersKey is the owners entry of key, owned by id.
func ownersKey(id AccountID, key []byte) []byte {
	k := make([]byte, 0, len(prefixOwners)+4+len(key))
	return append(appendID(append(k, prefixOwners...), id), key...)
}

// putOwned records that key belongs to id.
func (b *Batch) putOwned(id AccountID, key []byte) { b.set(ownersKey(id, key), nil, nil) }

// delOwned forgets that key belongs to id.
func (b *Batch) delOwned(id AccountID, key []byte) { b.del(ownersKey(id, key)) }

// eachOwned calls fn with every key the owners index lists for id, and
// the owners entry's own key.
func (db *DB) eachOwned(id AccountID, fn func(key, ownersKey []byte) error) error {
	p := appendID([]byte(prefixOwners), id)
	return db.scan(p, func(k, _ []byte) error {
		return fn(append([]byte(nil), k[len(p):]...), append([]byte(nil), k...))
	})
}

// migrateOwners writes the owners entry of every index keyspace entry and
// look-alike skeleton entry (schema version 3 to 4), in chunks that each
// commit on their own: a crash part way leaves the old version recorded,
// and the next open writes them all again (the same keys, empty values).
// It does not record the version; the caller does, once every step of the
// upgrade is done.
func migrateOwners(db *DB) (int, error) {
	n := 0
	c := newChunked(db)
	err := db.scan([]byte(prefixIndex), func(k, _ []byte) error {
		if len(k) < len(prefixIndex)+4 || bytes.IndexByte(k[len(prefixIndex):], '/') < 0 {
			return fmt.Errorf("index entry %q: %w", k, ErrCorrupt)
		}
		c.b.putOwned(AccountID(binary.BigEndian.Uint32(k[len(k)-4:])), k)
		n++
		return c.flush()
	})
	if err == nil {
		err = db.scan([]byte(prefixSkeleton), func(k, v []byte) error {
			id, err := decodeID(v)
			if err != nil {
				return fmt.Errorf("skeleton entry %q: %w", k, err)
			}
			c.b.putOwned(id, k)
			n++
			return c.flush()
		})
	}
	return n, c.finish(err)
}
