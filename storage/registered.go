package storage

import (
	"fmt"
	"strings"
)

// registrationIndex records the client address each account was
// registered from, so that an operator can see the accounts one address
// made (sock puppets: many accounts of one owner, each with the budgets of
// an account):
//
//	i/accounts.registered_from/<address>\x00<id:4>   (empty value)
//
// The entry is written by the registry in the batch that creates the
// account (Batch.PutRegistrationAddress), and removed with the account's
// other index entries when it is deleted. Accounts created by an operator
// command, or before this index existed, have none.
var registrationIndex = NewIndexKeyspace[struct{}]("accounts.registered_from", emptyCodec{})

// addressOf is the address of an index key.
func addressOf(k string) (string, error) {
	addr, ok := strings.CutSuffix(k, "\x00")
	if !ok {
		return "", fmt.Errorf("storage: %s key %q: %w: no terminator", registrationIndex.Name(), k, ErrCorrupt)
	}
	return addr, nil
}

// registrationKey is the index key of an address, terminated so that one
// address's entries are never a prefix of a longer one's.
func registrationKey(addr string) string { return addr + "\x00" }

// PutRegistrationAddress records that account id was registered from the
// client address addr (as the per-address limits key it).
func (b *Batch) PutRegistrationAddress(id AccountID, addr string) {
	if addr == "" {
		return
	}
	if err := registrationIndex.Put(indexWriter{b.ForAccount(id)}, registrationKey(addr), struct{}{}); err != nil && b.err == nil {
		b.err = err
	}
}

// RegisteredFrom returns, in id order, the accounts registered from addr.
func (db *DB) RegisteredFrom(addr string) ([]AccountID, error) {
	if addr == "" {
		return nil, nil
	}
	key := registrationKey(addr)
	var ids []AccountID
	err := registrationIndex.Each(db, key, func(k string, id AccountID, _ struct{}) error {
		if k == key {
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
}

// RegistrationAddresses calls fn, in address order, for every address
// that registered accounts, with those accounts in id order, until fn
// errs. One pass over the index: one entry per registered account.
func (db *DB) RegistrationAddresses(fn func(addr string, ids []AccountID) error) error {
	var cur string
	var ids []AccountID
	err := registrationIndex.Each(db, "", func(k string, id AccountID, _ struct{}) error {
		addr, err := addressOf(k)
		if err != nil {
			return err
		}
		if addr != cur && len(ids) > 0 {
			if err := fn(cur, ids); err != nil {
				return err
			}
			ids = nil
		}
		cur = addr
		ids = append(ids, id)
		return nil
	})
	if err != nil || len(ids) == 0 {
		return err
	}
	return fn(cur, ids)
}

// RegistrationAddress returns the address account id was registered from,
// or "" when none is recorded. It scans the index (one entry per
// registered account): for an operator's command, not for a request.
func (db *DB) RegistrationAddress(id AccountID) (string, error) {
	var addr string
	err := registrationIndex.Each(db, "", func(k string, writer AccountID, _ struct{}) error {
		if writer != id {
			return nil
		}
		var err error
		addr, err = addressOf(k)
		return err
	})
	return addr, err
}
