package storage

import (
	"errors"
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
// both keep their accounts. That step reads the logins outside their
// accounts' actors, so an account deleted meanwhile can keep an entry; such
// a stale entry refuses nothing, and the next login with the skeleton
// takes it over (StaleLoginSkeleton, PutLoginSkeletonInPlaceOf).

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
// (ErrNotFound: none). An entry that names an account deleted since is no
// holder (ErrNotFound; StaleLoginSkeleton gives that account).
func (db *DB) LoginSkeletonID(skeleton string) (AccountID, error) {
	id, err := db.skeletonEntry(skeleton)
	if err != nil {
		return 0, err
	}
	if ok, err := db.AccountExists(id); err != nil {
		return 0, err
	} else if !ok {
		return 0, fmt.Errorf("storage: login skeleton: %w (the account %d that held it was deleted)", ErrNotFound, id)
	}
	return id, nil
}

// StaleLoginSkeleton returns the account skeleton's entry names when that
// account no longer exists, and 0 when the entry is absent or its account
// exists. Such an entry outlived its account: the index's first build
// (host/accounts, for the accounts created before the index) reads the
// logins outside their actors, so an account deleted between that read
// and the build's commit keeps an entry no deletion will remove. It
// refuses nothing: LoginSkeletonID does not see it, and a new login with
// the skeleton takes it over (PutLoginSkeletonInPlaceOf).
func (db *DB) StaleLoginSkeleton(skeleton string) (AccountID, error) {
	id, err := db.skeletonEntry(skeleton)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	if ok, err := db.AccountExists(id); err != nil || ok {
		return 0, err
	}
	return id, nil
}

// skeletonEntry returns the account skeleton's entry names, live or not.
func (db *DB) skeletonEntry(skeleton string) (AccountID, error) {
	v, err := db.get(skeletonKey(skeleton))
	if err != nil {
		return 0, fmt.Errorf("storage: login skeleton: %w", err)
	}
	return decodeID(v)
}

// PutLoginSkeletonInPlaceOf records skeleton as account id's login's in
// place of stale's entry (StaleLoginSkeleton: an account deleted since),
// only if the entry still names stale: otherwise Commit returns a
// *ConflictError (ConflictLoginSkeleton) and writes nothing. An account is
// never restored and its id never reused, so an entry naming stale stays
// stale until this replaces it.
func (b *Batch) PutLoginSkeletonInPlaceOf(skeleton string, stale, id AccountID) {
	b.conds.swaps = append(b.conds.swaps, swap{k: skeletonKey(skeleton), old: appendID(nil, stale), nu: appendID(nil, id)})
	b.putOwned(id, skeletonKey(skeleton))
	b.delOwned(stale, skeletonKey(skeleton))
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
