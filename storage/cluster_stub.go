package storage

// TEMPORARY stand-ins for the clusterstore branch's API (removed at merge).

import "errors"

var (
	ErrConflict = errors.New("storage: conflict")
	ErrFenced   = errors.New("storage: fenced")
)

func (db *DB) ActivateAccount(id AccountID, node string) (uint64, *Account, error) {
	a, err := db.LoadAccount(id)
	return 1, a, err
}

func (b *Batch) Fence(id AccountID, epoch uint64) {}

func (db *DB) GlobalVersions() (map[string]uint64, error) { return map[string]uint64{}, nil }
