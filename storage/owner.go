package storage

import (
	"errors"
	"fmt"
)

// Owner epochs (fencing tokens). In cluster mode each account has one
// actor per cluster, but while membership changes two activations of one
// account can exist for a moment (a node that joined, a node paused past
// its lease, a partition). The store, not a clock or a lease, keeps the
// stale one from writing:
//
//	e/<id:4>   owner record: epoch (8 bytes, big-endian), then the node
//	           name of the activation that took it (for diagnostics)
//
// An activation calls ActivateAccount, which in one transaction raises
// the account's epoch and loads the account; every batch of the
// activation is then Fenced by that epoch, and commits only while the
// epoch is still the account's. Any write of an older activation either
// committed before the new activation's load (which then sees it) or is
// refused (ErrFenced) with nothing written. The owner record is never
// deleted, not even with the account, so that an epoch is never given
// twice.

// ownerKey is the owner record of account id.
func ownerKey(id AccountID) []byte { return appendID([]byte(prefixOwner), id) }

// decodeOwner reads an owner record (found false: none, epoch 0).
func decodeOwner(v []byte, found bool) (epoch uint64, node string, err error) {
	if !found {
		return 0, "", nil
	}
	if len(v) < 8 {
		return 0, "", fmt.Errorf("storage: owner record: %w: %d bytes", ErrCorrupt, len(v))
	}
	epoch, _ = decodeUint64(v[:8])
	return epoch, string(v[8:]), nil
}

func encodeOwner(epoch uint64, node string) []byte { return append(encodeUint64(epoch), node...) }

// ActivateAccount takes account id over for a new activation on node: in
// one transaction it raises the account's owner epoch by one (the first
// activation gets 1) and loads the account exactly as LoadAccount does. The
// activation passes the epoch to Batch.Fence in every batch it commits.
//
// On PostgreSQL the transaction is SERIALIZABLE and reads the owner record
// FOR UPDATE; on Pebble it holds the mutex of conditional commits. Either
// way a fenced write of an older activation is ordered before the load
// (the account returned includes it) or after the raise (it is refused).
//
// An account that does not exist is not activated: nothing is written (a
// request for an unknown id must not leave a record behind), and the
// result is epoch 0, a nil account and an error wrapping ErrNotFound.
// Epoch 0 fences every write: an activation that got it calls
// ActivateAccount again once the account exists.
//
// Errors: a failure that surely wrote nothing is a plain error; one whose
// outcome is unknown wraps ErrCommitUncertain (the epoch may have been
// raised: call again, which raises it once more; epochs only grow).
func (db *DB) ActivateAccount(id AccountID, node string) (epoch uint64, acct *Account, err error) {
	guard := db.guard.Load()
	if err := guard.admit(); err != nil {
		return 0, nil, err
	}
	var missing error
	err = guard.run(func() error {
		return db.eng.update(ownerKey(id), func(r reader, old []byte, found bool) ([]byte, error) {
			epoch, acct, missing = 0, nil, nil // fn may run again (a retried transaction)
			cur, _, err := decodeOwner(old, found)
			if err != nil {
				return nil, err
			}
			a, err := loadAccount(r, id)
			if errors.Is(err, ErrNotFound) {
				missing = err
				return nil, nil
			}
			if err != nil {
				return nil, err
			}
			epoch, acct = cur+1, a
			return encodeOwner(epoch, node), nil
		})
	})
	if err != nil {
		return 0, nil, db.engineFailure(guard, fmt.Errorf("storage: activate account %d: %w", id, err))
	}
	guard.succeeded()
	if missing != nil {
		return 0, nil, missing
	}
	return epoch, acct, nil
}

// Owner reads account id's owner epoch and the node of the activation
// that took it (0 and "" when it was never activated), for diagnostics
// and tests.
func (db *DB) Owner(id AccountID) (epoch uint64, node string, err error) {
	v, err := db.get(ownerKey(id))
	epoch, node, derr := decodeOwner(v, err == nil)
	switch {
	case err != nil && !errors.Is(err, ErrNotFound):
		return 0, "", fmt.Errorf("storage: owner of account %d: %w", id, err)
	case derr != nil:
		return 0, "", derr
	}
	return epoch, node, nil
}
