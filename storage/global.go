package storage

import (
	"errors"
	"fmt"
)

// Global writes from several processes. Global keyspaces have one writer
// per process (the registry actor), and a cluster has several processes,
// so every global commit is ordered by one sequence:
//
//	m/global_seq          the number of global commits (8 bytes, big-endian)
//	m/gver/<keyspace>     the sequence value of the last commit that wrote
//	                      the keyspace
//
// A global update reads the sequence before it reads anything else
// (GlobalSequence), then Seals its batch with it: the commit raises the
// sequence by one only if nobody else did meanwhile, and otherwise is
// refused (ConflictGlobalSequence) with nothing written, so that the update
// runs again on what the other commit wrote. Since every global commit
// writes the sequence, two global commits never interleave: each one's
// reads and writes act as if it ran alone. The versions let other
// processes see which keyspaces changed (GlobalVersions: one scan) and
// read again only those.

// GlobalSequence reads the global sequence (0 before the first sealed
// global commit).
func (db *DB) GlobalSequence() (uint64, error) {
	v, err := db.get(metaKey(metaGlobalSeq))
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("storage: global sequence: %w", err)
	}
	return decodeUint64(v)
}

// Seal makes the global update's batch commit only if the global sequence
// is still expected (as GlobalSequence read it before the update read
// anything), raising it to expected+1 and recording expected+1 as the
// version of every keyspace written so far (call it after the last write).
// It returns expected+1. A refused commit returns a *ConflictError
// (ConflictGlobalSequence) and writes nothing.
func (w *GlobalWrites) Seal(expected uint64) uint64 {
	next := expected + 1
	w.b.conds.swaps = append(w.b.conds.swaps, swap{k: metaKey(metaGlobalSeq), old: encodeUint64(expected),
		nu: encodeUint64(next), absentOK: expected == 0})
	for name := range w.touched {
		w.b.set(metaKey(metaGlobalVersion+name), encodeUint64(next), nil)
	}
	return next
}

// GlobalVersions maps each global keyspace written by a sealed commit to
// the sequence value of its last write, in one scan: another process
// compares them with what it read before, to tell which keyspaces
// changed.
func (db *DB) GlobalVersions() (map[string]uint64, error) {
	p := metaKey(metaGlobalVersion)
	out := map[string]uint64{}
	err := db.scan(p, func(k, v []byte) error {
		n, err := decodeUint64(v)
		if err != nil {
			return fmt.Errorf("storage: version of %s: %w", k[len(p):], err)
		}
		out[string(k[len(p):])] = n
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
