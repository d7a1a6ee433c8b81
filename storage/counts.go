package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Kept counts. A count is an int64 that belongs to no account: how many
// players have open reports against one player, say. Many accounts' actors
// change one count, so it cannot be an account's record (one writer); and a
// global record (one writer per process, sealed by the global sequence)
// would make every change a global commit. A count is therefore changed
// only by count operations that a batch carries beside its records and that
// the engine applies in the same atomic, synced commit, serialized with
// every other batch's count operations:
//
//   - Pebble: one mutex (countMu) is held while the operations read the
//     counts, and until the batch is in the memtable; the wait for the WAL
//     sync happens after it is released, so commits still group their
//     syncs. (A later commit may read a count before the earlier one's
//     sync returned; the WAL is in order, so after a crash both or only
//     the earlier survive.)
//   - PostgreSQL: statements in the commit's SERIALIZABLE transaction, in
//     the round trip of its writes (UPDATE-like: the count row is locked
//     FOR UPDATE, read and written in one statement).
//
// So a count is exact whatever the number of writers, and in a cluster a
// batch refused by its fence (a stale activation) changes no count either.
//
//	n/<keyspace>/<key>   the count, 8 bytes big-endian two's complement;
//	                     absent is zero (a count that reaches zero is deleted)
const prefixCount = "n/"

// CountKeyspace is a named set of kept counts shared by all accounts:
// n/<name>/<key>. Declare one at package level with NewCountKeyspace.
type CountKeyspace struct{ name string }

// NewCountKeyspace declares a keyspace of kept counts (see
// NewAccountKeyspace for the name rules).
func NewCountKeyspace(name string) *CountKeyspace {
	declare("n", name)
	return &CountKeyspace{name: name}
}

// Name is the keyspace's name.
func (k *CountKeyspace) Name() string { return k.name }

func (k *CountKeyspace) key(key string) []byte { return append([]byte(prefixCount+k.name+"/"), key...) }

// Counter names one count of a keyspace.
type Counter struct {
	ks  *CountKeyspace
	key string
}

// At names the count key of k.
func (k *CountKeyspace) At(key string) Counter { return Counter{ks: k, key: key} }

// Get reads the count key (0 when absent).
func (k *CountKeyspace) Get(db *DB, key string) (int64, error) {
	var n int64
	err := db.view(k.key(key), func(v []byte) (err error) {
		n, err = decodeCount(v)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("storage: count %s %q: %w", k.name, key, err)
	}
	return n, nil
}

// Each calls fn, in key order, for every count whose key is in [lo, hi)
// (hi "": to the keyspace's end) until fn errs. Absent counts are zero and
// not visited.
func (k *CountKeyspace) Each(db *DB, lo, hi string, fn func(key string, n int64) error) error {
	p := k.key("")
	end := prefixEnd(p)
	if hi != "" {
		end = k.key(hi)
	}
	return db.eng.scan(k.key(lo), end, func(key, v []byte) error {
		n, err := decodeCount(v)
		if err != nil {
			return fmt.Errorf("storage: count %s %q: %w", k.name, key[len(p):], err)
		}
		return fn(string(key[len(p):]), n)
	})
}

func encodeCount(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

func decodeCount(v []byte) (int64, error) {
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: a count of %d bytes", ErrCorrupt, len(v))
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// countKind is what a count operation does.
type countKind uint8

const (
	countAdd   countKind = iota // member += delta, with the sets' steps
	countReset                  // member = 0, with the sets' steps
	countSet                    // key = delta (no sets)
	countTake                   // member += delta (< 0), not below zero, with the sets' steps
)

// countOp is one count operation of a batch.
type countOp struct {
	kind  countKind
	key   []byte
	delta int64
	sets  [][]byte
}

// AddMember adds delta to the count member and keeps the counts sets as
// counts of members: each set counts the members whose count is above
// zero. When member's count goes from zero or less to above zero, every
// set gains one; from above zero to zero or less, every set loses one.
// So a set keeps how many distinct members are "in" (a player's distinct
// reporters with open reports), whoever changes which member, at the cost
// of one count per member. A member must always be changed with the same
// sets. It commits with w's batch.
func AddMember(w AccountWriter, member Counter, delta int64, sets ...Counter) {
	w.AccountWrites().b.addCount(countOp{kind: countAdd, key: member.ks.key(member.key), delta: delta, sets: counterKeys(sets)})
}

// TakeMember takes n (> 0) away from the count member, with AddMember's
// steps of sets, but takes a count above zero down to zero at most and
// leaves one at or below zero as it is. It undoes an earlier AddMember of
// the member that a ResetMember may have undone already (a report resolved
// while its reporter's deletion commits): AddMember would leave the member
// below zero. It commits with w's batch.
func TakeMember(w AccountWriter, member Counter, n int64, sets ...Counter) {
	w.AccountWrites().b.addCount(countOp{kind: countTake, key: member.ks.key(member.key), delta: -n, sets: counterKeys(sets)})
}

// ResetMember sets the count member to zero, with AddMember's steps of
// sets (a member leaving for good: a deleted account).
func ResetMember(w AccountWriter, member Counter, sets ...Counter) {
	w.AccountWrites().b.addCount(countOp{kind: countReset, key: member.ks.key(member.key), sets: counterKeys(sets)})
}

// Set stores n as the count key, whatever it held (a rebuild from the
// records a count is kept from). A batch's sets apply before its member
// changes.
func (k *CountKeyspace) Set(w GlobalWriter, key string, n int64) {
	gw := w.GlobalWrites()
	gw.touched[k.name] = true
	gw.b.addCount(countOp{kind: countSet, key: k.key(key), delta: n})
}

func counterKeys(cs []Counter) [][]byte {
	out := make([][]byte, 0, len(cs))
	seen := map[string]bool{}
	for _, c := range cs {
		k := c.ks.key(c.key)
		if !seen[string(k)] {
			seen[string(k)] = true
			out = append(out, k)
		}
	}
	return out
}

func (b *Batch) addCount(op countOp) {
	if b.err == nil {
		b.conds.counts = append(b.conds.counts, op)
	}
}

// orderedCounts returns the count operations in the order they apply: sets
// first, then member changes in the order they were made.
func (c *conditions) orderedCounts() []countOp {
	out := make([]countOp, 0, len(c.counts))
	for _, op := range c.counts {
		if op.kind == countSet {
			out = append(out, op)
		}
	}
	for _, op := range c.counts {
		if op.kind != countSet {
			out = append(out, op)
		}
	}
	return out
}

// applyCounts computes the counts' new values from what r reads now
// (Pebble, under countMu): the final value of every count the operations
// touch, nil where it becomes zero (deleted).
func (c *conditions) applyCounts(r reader) (map[string][]byte, error) {
	vals := map[string]int64{}
	read := func(k []byte) (int64, error) {
		if n, ok := vals[string(k)]; ok {
			return n, nil
		}
		var n int64
		err := r.view(k, func(v []byte) (err error) { n, err = decodeCount(v); return err })
		if err != nil && !errors.Is(err, ErrNotFound) {
			return 0, err
		}
		return n, nil
	}
	for _, op := range c.orderedCounts() {
		if op.kind == countSet {
			vals[string(op.key)] = op.delta
			continue
		}
		old, err := read(op.key)
		if err != nil {
			return nil, err
		}
		nu := old + op.delta
		switch {
		case op.kind == countReset:
			nu = 0
		case op.kind == countTake && old <= 0:
			nu = old
		case op.kind == countTake:
			nu = max(nu, 0)
		}
		vals[string(op.key)] = nu
		step := memberStep(old, nu)
		if step == 0 {
			continue
		}
		for _, s := range op.sets {
			n, err := read(s)
			if err != nil {
				return nil, err
			}
			vals[string(s)] = n + step
		}
	}
	out := make(map[string][]byte, len(vals))
	for k, n := range vals {
		if n == 0 {
			out[k] = nil
		} else {
			out[k] = encodeCount(n)
		}
	}
	return out, nil
}

// memberStep is what a member's change from old to nu does to its sets.
func memberStep(old, nu int64) int64 {
	switch {
	case old <= 0 && nu > 0:
		return 1
	case old > 0 && nu <= 0:
		return -1
	}
	return 0
}
