package storage

import (
	"encoding/binary"
	"fmt"
)

// prefixIndex holds the records of account-owned index keyspaces (see
// keys.go):
//
//	i/<keyspace>/<key><writer id:4>
const prefixIndex = "i/"

// IndexKeyspace is an index shared by all accounts whose every entry is
// owned by the account that wrote it: an entry's key ends with its
// writer's id, so two writers never write the same key, and each entry is
// written once, in its writer's own batch (through the writer's actor Tx),
// never read-modify-written. Entries are scanned globally, in key order,
// by any prefix of the index key: a queue ordered by time, or all entries
// about one account (the key's leading part) whoever wrote them.
//
// Because an entry is written in the same commit as its writer's own
// records, the index and those records stay consistent across a crash.
// Declare one at package level with NewIndexKeyspace.
type IndexKeyspace[V any] struct {
	name  string
	codec Codec[V]
}

// NewIndexKeyspace declares an account-owned index keyspace (see
// NewAccountKeyspace for the name rules). Declaring a name twice panics.
func NewIndexKeyspace[V any](name string, c Codec[V]) *IndexKeyspace[V] {
	declare("i", name)
	return &IndexKeyspace[V]{name: name, codec: c}
}

// Name is the keyspace's name.
func (k *IndexKeyspace[V]) Name() string { return k.name }

func (k *IndexKeyspace[V]) prefix() []byte { return []byte(prefixIndex + k.name + "/") }

// Put writes the entry key, owned by the writer's account.
// The owners index (owners.go) records it too.
func (k *IndexKeyspace[V]) Put(w AccountWriter, key string, v V) error {
	aw := w.AccountWrites()
	full := appendID(append(k.prefix(), key...), aw.id)
	if err := put(aw.b, k.name, k.codec, full, v); err != nil {
		return err
	}
	aw.b.putOwned(aw.id, full)
	return nil
}

// Delete removes the writer's entry key (and its owners entry).
func (k *IndexKeyspace[V]) Delete(w AccountWriter, key string) {
	aw := w.AccountWrites()
	full := appendID(append(k.prefix(), key...), aw.id)
	aw.b.del(full)
	aw.b.delOwned(aw.id, full)
}

// Each calls fn, in key order (then by writer), for every entry whose key
// starts with prefix ("" for all) until fn errs. An index key whose length
// varies must not be a prefix of another writer's, or the two would
// interleave: use fixed-width parts (KeyUint64, 4-byte ids).
func (k *IndexKeyspace[V]) Each(db *DB, prefix string, fn func(key string, writer AccountID, v V) error) error {
	p := k.prefix()
	n := len(p)
	return db.scan(append(p, prefix...), func(key, b []byte) error {
		if len(key) < n+4 {
			return fmt.Errorf("storage: %s: %w: short key", k.name, ErrCorrupt)
		}
		ik, writer := key[n:len(key)-4], AccountID(binary.BigEndian.Uint32(key[len(key)-4:]))
		v, err := k.codec.Decode(b)
		if err != nil {
			return fmt.Errorf("storage: %s %q by %d: %w", k.name, ik, writer, err)
		}
		return fn(string(ik), writer, v)
	})
}

// KeyUint32 encodes n as a 4-byte key part that sorts numerically (an
// account id or a sequence number).
func KeyUint32(n uint32) string { return string(binary.BigEndian.AppendUint32(nil, n)) }
