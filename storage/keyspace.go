package storage

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"sync"

	"google.golang.org/protobuf/proto"
)

// A Codec turns a record into bytes and back. Proto is the codec of choice
// (compact, schema evolution); an area may bring its own for a record that
// is not a message. Decode must not keep b (or a part of it) after it
// returns: storage hands it its own buffers, without a copy.
type Codec[V any] interface {
	Encode(V) ([]byte, error)
	Decode([]byte) (V, error)
}

// An Appender is a Codec that can tell a value's encoded size and encode
// it into space it is given: a keyspace's Put then writes the record
// straight into the batch, with no intermediate buffer (a large record,
// such as a cloud archive, is copied once). Proto's codec is one.
type Appender[V any] interface {
	EncodedSize(V) (int, error)
	// AppendEncoded appends exactly EncodedSize(v) bytes to dst.
	AppendEncoded(dst []byte, v V) ([]byte, error)
}

// Proto is the Codec of a protobuf message type (a pointer such as
// *mypb.Marks). Values carry the format byte 2 like every record.
func Proto[V proto.Message]() Codec[V] { return protoCodec[V]{} }

type protoCodec[V proto.Message] struct{}

func (protoCodec[V]) Encode(v V) ([]byte, error) { return encodePB(v) }

func (protoCodec[V]) EncodedSize(v V) (int, error) { return 1 + marshal.Size(v), nil }

// AppendEncoded appends v's record; EncodedSize, called first, cached its
// sizes.
func (protoCodec[V]) AppendEncoded(dst []byte, v V) ([]byte, error) {
	return marshalSized.MarshalAppend(append(dst, formatV2), v)
}

func (protoCodec[V]) Decode(b []byte) (V, error) {
	var zero V
	v := zero.ProtoReflect().New().Interface().(V)
	return v, decodePB(b, v)
}

var (
	keyspaceName = regexp.MustCompile(`^[a-z][a-z0-9_.-]{0,63}$`)
	keyspacesMu  sync.Mutex
	keyspaces    = map[string]bool{}
)

func declare(kind, name string) {
	if !keyspaceName.MatchString(name) {
		panic(fmt.Sprintf("storage: keyspace name %q: want %s", name, keyspaceName))
	}
	keyspacesMu.Lock()
	defer keyspacesMu.Unlock()
	if keyspaces[kind+name] {
		panic(fmt.Sprintf("storage: keyspace %q declared twice", name))
	}
	keyspaces[kind+name] = true
}

// KeyUint64 encodes n as a key part that sorts numerically.
func KeyUint64(n uint64) string { return string(binary.BigEndian.AppendUint64(nil, n)) }

// AccountWriter is what a per-account record is written through: the Tx
// of a Change running in the account's actor (actors.Tx).
type AccountWriter interface {
	AccountWrites() *AccountWrites
}

// AccountWrites are the writes of one change to one account's records.
type AccountWrites struct {
	b  *Batch
	id AccountID
}

// ForAccount scopes b to the records of account id (package actors).
func (b *Batch) ForAccount(id AccountID) *AccountWrites { return &AccountWrites{b: b, id: id} }

// GlobalWriter is what a global record is written through: the GlobalTx
// of the single global writer (actors.GlobalTx).
type GlobalWriter interface {
	GlobalWrites() *GlobalWrites
}

// GlobalWrites are the writes of one global update.
type GlobalWrites struct {
	b       *Batch
	touched map[string]bool
}

// ForGlobal scopes b to global records (package actors).
func (b *Batch) ForGlobal() *GlobalWrites { return &GlobalWrites{b: b, touched: map[string]bool{}} }

// Touched lists the global keyspaces written so far (their Name).
func (w *GlobalWrites) Touched() []string {
	out := make([]string, 0, len(w.touched))
	for n := range w.touched {
		out = append(out, n)
	}
	return out
}

// AccountKeyspace is a typed set of records per account, keyed by
// (account, key): x/<name>/<id:4><key>. Declare one per kind of record at
// package level with NewAccountKeyspace.
type AccountKeyspace[V any] struct {
	name  string
	base  string // the key prefix before the account id
	codec Codec[V]
}

// NewAccountKeyspace declares a per-account keyspace. The name ([a-z0-9_.-],
// conventionally "<area>.<record>") is part of every key: never rename it.
// Declaring a name twice panics.
func NewAccountKeyspace[V any](name string, c Codec[V]) *AccountKeyspace[V] {
	declare("x", name)
	return &AccountKeyspace[V]{name: name, base: prefixAcctKS + name + "/", codec: c}
}

// fixedPrefix is the form of the key prefix NewAccountKeyspaceAt takes.
var fixedPrefix = regexp.MustCompile(`^[a-z]/$`)

// NewAccountKeyspaceAt declares a per-account keyspace whose records are
// stored under a fixed one-letter prefix, <prefix><id:4><key>, instead of
// x/<name>/: for an area's records that were stored before keyspaces
// existed and keep their keys, so that no data directory needs migrating.
// New keyspaces use NewAccountKeyspace. The prefix ("c/") must be none of
// those storage uses (keys.go) nor another keyspace's; otherwise, or when
// the name is declared twice, it panics.
func NewAccountKeyspaceAt[V any](name, prefix string, c Codec[V]) *AccountKeyspace[V] {
	declare("x", name)
	if !fixedPrefix.MatchString(prefix) || ownPrefixes[prefix] {
		panic(fmt.Sprintf("storage: keyspace %q: prefix %q is not free (want %s, none of keys.go's)", name, prefix, fixedPrefix))
	}
	keyspacesMu.Lock()
	defer keyspacesMu.Unlock()
	if keyspaces["/"+prefix] {
		panic(fmt.Sprintf("storage: keyspace %q: prefix %q declared twice", name, prefix))
	}
	keyspaces["/"+prefix] = true
	fixedNames[prefix] = name
	return &AccountKeyspace[V]{name: name, base: prefix, codec: c}
}

// fixedNames maps NewAccountKeyspaceAt's prefixes to their keyspace names.
var fixedNames = map[string]string{}

// fixedKeyspaceName is the name of the keyspace declared at prefix, or the
// prefix itself when none is declared in this process.
func fixedKeyspaceName(prefix string) string {
	keyspacesMu.Lock()
	defer keyspacesMu.Unlock()
	if n, ok := fixedNames[prefix]; ok {
		return n
	}
	return prefix
}

func (k *AccountKeyspace[V]) prefix(id AccountID) []byte {
	return appendID([]byte(k.base), id)
}

// Get reads the record key of account id; ErrNotFound when there is none.
// (Inside a Change, reads see the database as of the change's start, not
// the change's own writes.)
func (k *AccountKeyspace[V]) Get(db *DB, id AccountID, key string) (V, error) {
	var v V
	err := k.View(db, id, key, func(b []byte) (err error) {
		v, err = k.codec.Decode(b)
		return err
	})
	if err != nil {
		var zero V
		return zero, err
	}
	return v, nil
}

// View calls fn with the stored bytes of the record key of account id,
// valid only during the call and not decoded: for reading part of a large
// record (a header) without the codec's whole decode. ErrNotFound when
// there is none.
func (k *AccountKeyspace[V]) View(db *DB, id AccountID, key string, fn func(b []byte) error) error {
	if err := db.view(append(k.prefix(id), key...), fn); err != nil {
		return fmt.Errorf("storage: %s %d/%q: %w", k.name, id, key, err)
	}
	return nil
}

// Each calls fn, in key order, for every record of account id whose key
// starts with prefix ("" for all) until fn errs.
func (k *AccountKeyspace[V]) Each(db *DB, id AccountID, prefix string, fn func(key string, v V) error) error {
	p := k.prefix(id)
	n := len(p)
	return db.scan(append(p, prefix...), func(key, b []byte) error {
		v, err := k.codec.Decode(b)
		if err != nil {
			return fmt.Errorf("storage: %s %d/%q: %w", k.name, id, key[n:], err)
		}
		return fn(string(key[n:]), v)
	})
}

// EachAll calls fn, in (account, key) order, for every record of every
// account until fn errs: a scan of the whole keyspace, for rebuilding a
// value derived from all accounts' records at start (for example a guide's
// vote counts). It reads storage directly, not through the actors.
func (k *AccountKeyspace[V]) EachAll(db *DB, fn func(id AccountID, key string, v V) error) error {
	p := []byte(k.base)
	n := len(p)
	return db.scan(p, func(key, b []byte) error {
		if len(key) < n+4 {
			return fmt.Errorf("storage: %s: %w: key of %d bytes", k.name, ErrCorrupt, len(key))
		}
		id, _ := decodeID(key[n : n+4])
		v, err := k.codec.Decode(b)
		if err != nil {
			return fmt.Errorf("storage: %s %d/%q: %w", k.name, id, key[n+4:], err)
		}
		return fn(id, string(key[n+4:]), v)
	})
}

// EachSize calls fn, in key order, with the key and stored size in bytes
// of every record of account id until fn errs, decoding nothing (for
// quotas).
func (k *AccountKeyspace[V]) EachSize(db *DB, id AccountID, fn func(key string, size int) error) error {
	p := k.prefix(id)
	n := len(p)
	return db.scan(p, func(key, b []byte) error { return fn(string(key[n:]), len(b)) })
}

// Put writes the record key of the writer's account.
func (k *AccountKeyspace[V]) Put(w AccountWriter, key string, v V) error {
	aw := w.AccountWrites()
	return put(aw.b, k.name, k.codec, append(k.prefix(aw.id), key...), v)
}

// Delete removes the record key of the writer's account.
func (k *AccountKeyspace[V]) Delete(w AccountWriter, key string) {
	aw := w.AccountWrites()
	aw.b.del(append(k.prefix(aw.id), key...))
}

// GlobalKeyspace is a typed set of records shared by all accounts (a
// catalog, guide content, a queue's index): g/<name>/<key>. Only the global
// writer writes them. Declare one at package level with NewGlobalKeyspace.
type GlobalKeyspace[V any] struct {
	name  string
	codec Codec[V]
}

// NewGlobalKeyspace declares a global keyspace (see NewAccountKeyspace for
// the name rules).
func NewGlobalKeyspace[V any](name string, c Codec[V]) *GlobalKeyspace[V] {
	declare("g", name)
	return &GlobalKeyspace[V]{name: name, codec: c}
}

// Name is the keyspace's name.
func (k *GlobalKeyspace[V]) Name() string { return k.name }

func (k *GlobalKeyspace[V]) key(key string) []byte {
	return append([]byte(prefixGlobKS+k.name+"/"), key...)
}

// Get reads the record key; ErrNotFound when there is none.
func (k *GlobalKeyspace[V]) Get(db *DB, key string) (V, error) {
	var v V
	err := db.view(k.key(key), func(b []byte) (err error) {
		v, err = k.codec.Decode(b)
		return err
	})
	if err != nil {
		var zero V
		return zero, fmt.Errorf("storage: %s %q: %w", k.name, key, err)
	}
	return v, nil
}

// Each calls fn, in key order, for every record whose key starts with
// prefix until fn errs.
func (k *GlobalKeyspace[V]) Each(db *DB, prefix string, fn func(key string, v V) error) error {
	n := len(k.key(""))
	return db.scan(k.key(prefix), func(key, b []byte) error {
		v, err := k.codec.Decode(b)
		if err != nil {
			return fmt.Errorf("storage: %s %q: %w", k.name, key[n:], err)
		}
		return fn(string(key[n:]), v)
	})
}

// Put writes the record key.
func (k *GlobalKeyspace[V]) Put(w GlobalWriter, key string, v V) error {
	gw := w.GlobalWrites()
	gw.touched[k.name] = true
	return put(gw.b, k.name, k.codec, k.key(key), v)
}

// put encodes v with codec into b under key: straight into the batch when
// the codec is an Appender.
func put[V any](b *Batch, name string, codec Codec[V], key []byte, v V) error {
	if a, ok := codec.(Appender[V]); ok {
		n, err := a.EncodedSize(v)
		if err != nil {
			return fmt.Errorf("storage: encode %s: %w", name, err)
		}
		if err := b.setEncoded(key, n, func(dst []byte) ([]byte, error) { return a.AppendEncoded(dst, v) }); err != nil {
			return fmt.Errorf("storage: encode %s: %w", name, err)
		}
		return nil
	}
	enc, err := codec.Encode(v)
	if err != nil {
		return fmt.Errorf("storage: encode %s: %w", name, err)
	}
	b.set(key, enc, nil)
	return nil
}

// Delete removes the record key.
func (k *GlobalKeyspace[V]) Delete(w GlobalWriter, key string) {
	gw := w.GlobalWrites()
	gw.touched[k.name] = true
	gw.b.del(k.key(key))
}
