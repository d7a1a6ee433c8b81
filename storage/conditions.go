package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Conditional writes. A batch may carry conditions that its commit checks
// in the same atomic step as its writes: an owner epoch it is fenced by
// (Fence), keys it inserts only where absent (PutLoginNew,
// PutLoginSkeletonNew) and values it sets only where they still hold what
// the writer read (SetNextAccountIDIf, GlobalWrites.Seal); it may also carry
// operations on kept counts (counts.go), which read and write the counts in
// the same atomic step and never refuse a batch. If one does not
// hold, nothing of the batch is written and Commit returns a *ConflictError
// or a *FencedError (both errors.Is ErrConflict): a definite failure, never
// ErrCommitUncertain.
//
// How each engine makes check and write one step:
//   - PostgreSQL: inside the commit's SERIALIZABLE transaction, in the
//     round trip of its writes: fenced epochs are read SELECT ... FOR SHARE
//     (an activation bumping the epoch, which takes the row FOR UPDATE,
//     waits for this commit, or this commit waits for it and then fails to
//     serialize, runs again and sees the new epoch); inserts are INSERT ...
//     ON CONFLICT DO NOTHING with the inserted rows counted; compare-and-set
//     is UPDATE ... WHERE v = old (or INSERT ... ON CONFLICT DO UPDATE ...
//     WHERE v = old where absent counts as the starting value). A
//     condition that does not hold rolls the transaction back.
//   - Pebble: one mutex per database is held across the checks and the
//     synced apply of every batch with conditions, and across
//     ActivateAccount. A batch without conditions takes no lock and costs
//     nothing more; it must therefore not set a key that conditions guard
//     (owner epochs, the login and look-alike indexes, the id and global
//     sequences; kept counts have a mutex of their own, see counts.go),
//     which only the functions named above set. (Deleting one
//     is safe: an account's deletion removes its login and skeleton
//     entries; an insert-if-absent checked just before sees the entry and
//     is refused, one checked just after finds it gone.)
//
// A key must not be both written plainly and conditionally in one batch.

var (
	// ErrConflict marks a commit refused, with nothing written, because a
	// condition of its batch did not hold: another writer got there
	// first. errors.As gives the *ConflictError (or *FencedError) that
	// says which.
	ErrConflict = errors.New("another write got there first; nothing was written")
	// ErrFenced refuses a write of an account's activation whose owner
	// epoch is no longer the account's (another activation took the
	// account over): nothing was written, and the activation must stop.
	// It wraps ErrConflict.
	ErrFenced = fmt.Errorf("this account is now served elsewhere: %w", ErrConflict)
)

// Conflict says which condition of a batch did not hold.
type Conflict int

// The conditions a batch can carry.
const (
	ConflictKey            Conflict = iota // a key of no kind below
	ConflictLogin                          // PutLoginNew: the login exists
	ConflictLoginSkeleton                  // PutLoginSkeletonNew: a look-alike login exists
	ConflictNextAccountID                  // SetNextAccountIDIf: the id sequence moved
	ConflictGlobalSequence                 // GlobalWrites.Seal: another global write committed
)

// ConflictError is the refusal of a batch whose insert-if-absent found its
// key, or whose compare-and-set found another value. Key is the login or
// skeleton concerned (ConflictLogin, ConflictLoginSkeleton).
type ConflictError struct {
	On  Conflict
	Key string
}

func (e *ConflictError) Error() string {
	switch e.On {
	case ConflictLogin:
		return fmt.Sprintf("the login %q exists; nothing was written", e.Key)
	case ConflictLoginSkeleton:
		return "a login that looks the same exists; nothing was written"
	case ConflictNextAccountID:
		return "another account was created at the same time; nothing was written"
	case ConflictGlobalSequence:
		return "another update of shared records committed first; nothing was written"
	}
	return fmt.Sprintf("the record %q changed or exists; nothing was written", e.Key)
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// FencedError is the refusal of a batch fenced by Epoch while the account's
// owner epoch is Current (0: never activated).
type FencedError struct {
	ID             AccountID
	Epoch, Current uint64
}

func (e *FencedError) Error() string {
	return fmt.Sprintf("account %d is now served by a newer activation (epoch %d, this one held %d); nothing was written",
		e.ID, e.Current, e.Epoch)
}

// Unwrap makes errors.Is(err, ErrFenced) and ErrConflict hold.
func (e *FencedError) Unwrap() error { return ErrFenced }

// conditions are a batch's conditions (see the top of this file).
type conditions struct {
	fences []fence
	news   []kv
	swaps  []swap
	counts []countOp // kept counts (counts.go)
}

type fence struct {
	id    AccountID
	epoch uint64
}

type kv struct{ k, v []byte }

type swap struct {
	k, old, nu []byte
	absentOK   bool // an absent key counts as holding old
}

// none reports whether there is nothing to check.
func (c *conditions) none() bool {
	return c == nil || len(c.fences) == 0 && len(c.news) == 0 && len(c.swaps) == 0 && len(c.counts) == 0
}

// writes reports whether the conditions carry writes of their own.
func (c *conditions) writes() bool {
	return c != nil && (len(c.news) > 0 || len(c.swaps) > 0 || len(c.counts) > 0)
}

// onlyCounts reports whether the conditions are count operations alone.
func (c *conditions) onlyCounts() bool {
	return len(c.counts) > 0 && len(c.fences) == 0 && len(c.news) == 0 && len(c.swaps) == 0
}

// check tells whether every condition holds as r reads the database now
// (the Pebble engine, under its mutex).
func (c *conditions) check(r reader) error {
	for _, f := range c.fences {
		if err := f.check(r.view(ownerKey(f.id), func(v []byte) error { return f.ok(v, true) })); err != nil {
			return err
		}
	}
	for _, n := range c.news {
		err := r.view(n.k, func([]byte) error { return nil })
		switch {
		case err == nil:
			return conflictOn(n.k)
		case !errors.Is(err, ErrNotFound):
			return err
		}
	}
	for _, s := range c.swaps {
		var cur []byte
		err := r.view(s.k, func(v []byte) error { cur = append([]byte(nil), v...); return nil })
		switch {
		case errors.Is(err, ErrNotFound):
			if !s.absentOK {
				return conflictOn(s.k)
			}
		case err != nil:
			return err
		case !bytes.Equal(cur, s.old):
			return conflictOn(s.k)
		}
	}
	return nil
}

// check turns the result of reading the fence's epoch row into the fence's
// verdict: ok's own, or the verdict on an absent row.
func (f fence) check(err error) error {
	if errors.Is(err, ErrNotFound) {
		return f.ok(nil, false)
	}
	return err
}

// ok says whether the stored owner record v (found false: none) still
// holds the fence's epoch. Epoch 0 never does.
func (f fence) ok(v []byte, found bool) error {
	cur, _, err := decodeOwner(v, found)
	if err != nil {
		return err
	}
	if cur != f.epoch || f.epoch == 0 {
		return &FencedError{ID: f.id, Epoch: f.epoch, Current: cur}
	}
	return nil
}

// conflictOn is the ConflictError of a conditional write of key k.
func conflictOn(k []byte) *ConflictError {
	s := string(k)
	switch {
	case strings.HasPrefix(s, prefixLogin):
		return &ConflictError{On: ConflictLogin, Key: s[len(prefixLogin):]}
	case strings.HasPrefix(s, prefixSkeleton):
		return &ConflictError{On: ConflictLoginSkeleton, Key: s[len(prefixSkeleton):]}
	case s == string(metaKey(metaNextAccountID)):
		return &ConflictError{On: ConflictNextAccountID}
	case s == string(metaKey(metaGlobalSeq)):
		return &ConflictError{On: ConflictGlobalSequence}
	}
	return &ConflictError{On: ConflictKey, Key: s}
}

// Fence makes the batch commit only if account id's owner epoch is still
// epoch (as ActivateAccount returned it) when it commits; otherwise Commit
// returns a *FencedError (ErrFenced) and writes nothing. Epoch 0 (no
// activation) never commits. A batch with no write commits nothing and
// checks nothing.
func (b *Batch) Fence(id AccountID, epoch uint64) {
	b.conds.fences = append(b.conds.fences, fence{id: id, epoch: epoch})
}

// PutLoginNew maps a new login to its account, only if the login is not
// taken: otherwise Commit returns a *ConflictError (ConflictLogin) and
// writes nothing.
func (b *Batch) PutLoginNew(login string, id AccountID) {
	b.conds.news = append(b.conds.news, kv{loginKey(login), appendID(nil, id)})
}

// SetNextAccountIDIf stores next as the id the next created account gets,
// only if the stored one is still expected (as NextAccountID read it; an
// empty database holds FirstAccountID): otherwise Commit returns a
// *ConflictError (ConflictNextAccountID) and writes nothing.
func (b *Batch) SetNextAccountIDIf(expected, next AccountID) {
	b.conds.swaps = append(b.conds.swaps, swap{k: metaKey(metaNextAccountID), old: appendID(nil, expected),
		nu: appendID(nil, next), absentOK: expected == FirstAccountID})
}

func encodeUint64(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

func decodeUint64(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("%w: a counter of %d bytes", ErrCorrupt, len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}

// PutMetaNew writes a metadata value only if the name holds none:
// otherwise Commit returns a *ConflictError (ConflictKey) and writes
// nothing (generated secrets, which every process must share).
func (b *Batch) PutMetaNew(name string, value []byte) {
	b.conds.news = append(b.conds.news, kv{metaKey(name), append([]byte{}, value...)})
}
