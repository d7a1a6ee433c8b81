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

// ActivateAccount takes account id over for a new activation on node: it
// raises the account's owner epoch by one (the first activation gets 1),
// in a transaction of its own, then loads the account exactly as
// LoadAccount does. The activation passes the epoch to Batch.Fence in
// every batch it commits.
//
// The raise reads the owner record locked (on PostgreSQL FOR UPDATE, in a
// READ COMMITTED transaction; on Pebble under the mutex of conditional
// commits), so a fenced write of an older activation either committed
// before the raise or is refused after it; the load comes after the raise
// and so sees every write that committed. Loading inside the raise's
// transaction, as this once did, made it a SERIALIZABLE transaction that
// read the account's every record: many activations at once (a cluster's
// start, a node's accounts taken over) then failed to serialize against
// each other and ran again (issue 35 item 7).
//
// An account that does not exist is not activated: nothing is written (a
// request for an unknown id must not leave a record behind), and the
// result is epoch 0, a nil account and an error wrapping ErrNotFound.
// Epoch 0 fences every write: an activation that got it calls
// ActivateAccount again once the account exists. (One deleted between the
// check and the raise keeps the owner record the raise wrote, as every
// deleted account keeps its own: see above.)
//
// Errors: a failure that surely wrote nothing is a plain error; one whose
// outcome is unknown wraps ErrCommitUncertain (the epoch may have been
// raised: call again, which raises it once more; epochs only grow). A
// load that fails after the raise is a plain error too: the epoch was
// raised, and the next call raises it again.
func (db *DB) ActivateAccount(id AccountID, node string) (epoch uint64, acct *Account, err error) {
	exists, err := db.AccountExists(id)
	if err != nil {
		return 0, nil, fmt.Errorf("storage: activate account %d: %w", id, err)
	}
	if !exists {
		return 0, nil, fmt.Errorf("storage: activate account %d: %w", id, ErrNotFound)
	}
	guard := db.guard.Load()
	if err := guard.admit(); err != nil {
		return 0, nil, err
	}
	err = guard.run(func() error {
		return db.eng.update(ownerKey(id), func(old []byte, found bool) ([]byte, error) {
			cur, _, err := decodeOwner(old, found)
			if err != nil {
				return nil, err
			}
			epoch = cur + 1
			return encodeOwner(epoch, node), nil
		})
	})
	if err != nil {
		return 0, nil, db.engineFailure(guard, fmt.Errorf("storage: activate account %d: %w", id, err))
	}
	guard.succeeded()
	acct, err = loadAccount(db.eng, id)
	if err != nil {
		return 0, nil, fmt.Errorf("storage: activate account %d: %w", id, err)
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
