package storage

import (
	"fmt"
)

// The look-alike index: one record per login skeleton (the form two logins
// that look alike share, computed by host/login), so that logins stay
// unique up to looks in the store itself, across every process that
// creates accounts:
//
//	k/<skeleton>   AccountID of the login that holds it (4 bytes)
//
// The registry writes a new account's entry insert-if-absent in the batch
// that creates it (PutLoginSkeletonNew): a second account whose login
// looks the same is refused by the commit, whichever process creates it.
// The entry goes with the account (AccountRecords). Accounts created
// before the index existed get their entries once, from their logins, by
// the step host/accounts runs before its first creation; where two
// existing logins share a skeleton, the first (by id) holds the entry and
// both keep their accounts.

// skeletonKey is the index key of a skeleton.
func skeletonKey(skeleton string) []byte { return append([]byte(prefixSkeleton), skeleton...) }

// PutLoginSkeletonNew records skeleton as account id's login's, only if no
// other login holds it: otherwise Commit returns a *ConflictError
// (ConflictLoginSkeleton) and writes nothing.
func (b *Batch) PutLoginSkeletonNew(skeleton string, id AccountID) {
	b.conds.news = append(b.conds.news, kv{skeletonKey(skeleton), appendID(nil, id)})
	b.putOwned(id, skeletonKey(skeleton)) // written only if the insert is: the batch commits whole or not at all
}

// LoginSkeletonID returns the account whose login holds skeleton
// (ErrNotFound: none).
func (db *DB) LoginSkeletonID(skeleton string) (AccountID, error) {
	v, err := db.get(skeletonKey(skeleton))
	if err != nil {
		return 0, fmt.Errorf("storage: login skeleton: %w", err)
	}
	return decodeID(v)
}

// EachLogin calls fn, in login order, with every login and its account
// until fn errs.
func (db *DB) EachLogin(fn func(login string, id AccountID) error) error {
	return db.scan([]byte(prefixLogin), func(k, v []byte) error {
		id, err := decodeID(v)
		if err != nil {
			return fmt.Errorf("storage: login %q: %w", k[len(prefixLogin):], err)
		}
		return fn(string(k[len(prefixLogin):]), id)
	})
}
