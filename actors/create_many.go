package actors

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/honmaster/masterserver/storage"
)

// MaxCreateMany bounds the accounts of one CreateAccounts call: one commit
// of that many new accounts is a few MiB, and the registry serves nothing
// else while it writes them.
const MaxCreateMany = 10000

// Created is the outcome of one account of CreateAccounts: the account as
// written, or why it was refused (ErrLoginTaken, ErrLoginLookalike,
// ErrBadParent, ErrIDSpace).
type Created struct {
	Account *storage.Account
	Err     error
}

// CreateAccounts creates the accounts of reqs through the registry in one
// synced commit (an operator's bulk import: a commit per account would
// make a million accounts take hours). It returns one result per request,
// in order: an account refused by the rules (its login or a look-alike of
// it exists, in the store or earlier in reqs) is reported in its result
// and the others are created all the same. A sub-account (ParentLogin) is
// refused with ErrBadParent: its parent is resolved by CreateAccount only.
// Near the end of the id space the accounts that still fit are created
// and the ones after refused with ErrIDSpace.
//
// The error is for the whole call: nothing was written, or, wrapping
// storage.ErrCommitUncertain or ErrTimeout, the outcome is unknown (look
// the logins up).
//
// Why a batch of new accounts keeps one writer per account: no actor of
// these accounts exists, or can exist, before the commit. Their ids are
// taken from the stored sequence by compare-and-set in the same commit
// (another process's registry that read the same sequence fails its own
// commit, or this one fails and retries), so no other creation writes
// them; and an actor is activated only for a stored account:
// storage.DB.ActivateAccount of an id whose records do not exist writes
// nothing and returns epoch 0, which fences every write. So the first
// activation of each account follows this commit, takes owner epoch 1 and
// loads the records written here. No owner epoch is written for a new
// account (CreateAccount writes none either): the epoch counts
// activations, and the registry is not one.
func (s *System) CreateAccounts(ctx context.Context, reqs []*NewAccount) ([]Created, error) {
	if len(reqs) > MaxCreateMany {
		return nil, fmt.Errorf("actors: %d accounts in one call, at most %d", len(reqs), MaxCreateMany)
	}
	if len(reqs) == 0 {
		return nil, nil
	}
	c, err := mutate[*createdMany](ctx, s, s.registry, func(dl time.Time) *envelope {
		return &envelope{Msg: &createAccounts{Reqs: reqs, Deadline: dl}}
	})
	if err != nil {
		return nil, err
	}
	return c.Results, nil
}

// createMany writes the accounts of reqs in one batch (see
// CreateAccounts). The refusals are decided before the batch: a login or
// skeleton already stored, or met earlier in reqs (two inserts of one key
// in a batch would both pass the store's check, which reads the stored
// state). A commit refused on a login or skeleton another process stored
// meanwhile refuses that account and writes the others again; one that
// lost the id sequence reads it again, up to createTries times.
//
// deadlines, when not nil, are the requests' own: one past its deadline is
// refused with ErrExpired.
func (r *registry) createMany(reqs []*NewAccount, deadlines []time.Time) ([]Created, error) {
	db := r.sys.db
	res := make([]Created, len(reqs))
	logins := make(map[string]bool, len(reqs))
	skeletons := make(map[string]bool, len(reqs))
	for i, req := range reqs {
		if deadlines != nil && expired(deadlines[i]) {
			res[i].Err = ErrExpired
			continue
		}
		if req.ParentLogin != "" {
			res[i].Err = fmt.Errorf("%w: %q: a sub-account is not created in a batch", ErrBadParent, req.ParentLogin)
			continue
		}
		// The login before its skeleton (a login taken is the plainer
		// reason), and only accepted accounts hold theirs for the lines
		// after them.
		taken := logins[req.Login]
		if !taken {
			if _, err := db.LoginID(req.Login); err == nil {
				taken = true
			} else if !errors.Is(err, storage.ErrNotFound) {
				return nil, err
			}
		}
		if taken {
			res[i].Err = fmt.Errorf("%w: %q", ErrLoginTaken, req.Login)
			continue
		}
		if req.LoginSkeleton != "" {
			alike := skeletons[req.LoginSkeleton]
			if !alike {
				if _, err := db.LoginSkeletonID(req.LoginSkeleton); err == nil {
					alike = true
				} else if !errors.Is(err, storage.ErrNotFound) {
					return nil, err
				}
			}
			if alike {
				res[i].Err = fmt.Errorf("%w: %q", ErrLoginLookalike, req.Login)
				continue
			}
			skeletons[req.LoginSkeleton] = true
		}
		logins[req.Login] = true
	}
	return r.commitMany(reqs, res)
}

// commitMany commits the accounts of reqs not refused in res (see
// createManyOnce), refusing those whose login or skeleton another process
// stored since they were checked. Each such conflict refuses one account,
// so the loop ends; lost id sequences are bounded by createTries.
func (r *registry) commitMany(reqs []*NewAccount, res []Created) ([]Created, error) {
	for lost := 0; ; {
		err := r.createManyOnce(reqs, res)
		var ce *storage.ConflictError
		if !errors.As(err, &ce) {
			if err != nil {
				return nil, err
			}
			return res, nil
		}
		switch ce.On {
		case storage.ConflictLogin, storage.ConflictLoginSkeleton:
			if refuseConflicting(reqs, res, ce) {
				continue
			}
		case storage.ConflictNextAccountID:
			if lost++; lost < createTries {
				lostSequence(lost)
				continue
			}
		}
		return nil, err
	}
}

// refuseConflicting refuses the pending account whose login or skeleton
// the conflict names, and reports whether there was one.
func refuseConflicting(reqs []*NewAccount, res []Created, ce *storage.ConflictError) bool {
	for i, req := range reqs {
		if res[i].Err != nil {
			continue
		}
		switch {
		case ce.On == storage.ConflictLogin && req.Login == ce.Key:
			res[i].Err = fmt.Errorf("%w: %q", ErrLoginTaken, req.Login)
			return true
		case ce.On == storage.ConflictLoginSkeleton && req.LoginSkeleton == ce.Key:
			res[i].Err = fmt.Errorf("%w: %q", ErrLoginLookalike, req.Login)
			return true
		}
	}
	return false
}

// createManyOnce gives the accounts not refused in res consecutive ids
// from the stored sequence and commits them in one batch, filling in
// res's accounts (only when the commit succeeded).
func (r *registry) createManyOnce(reqs []*NewAccount, res []Created) error {
	db := r.sys.db
	n := 0
	for i := range res {
		if res[i].Err == nil {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	first, err := db.NextAccountID()
	if err != nil {
		return err
	}
	// Ids are uint32: an id past the last would wrap onto an old account's.
	// The accounts that still fit get theirs; the ones after are refused
	// (0: the sequence has wrapped, none fits).
	room := uint64(0)
	if first != 0 {
		room = 1<<32 - uint64(first)
	}
	if uint64(n) > room {
		for i := range res {
			if res[i].Err != nil {
				continue
			}
			if room > 0 {
				room--
				continue
			}
			res[i].Err = fmt.Errorf("%w: the id sequence is at %d", ErrIDSpace, first)
			n--
		}
		if n == 0 {
			return nil
		}
	}
	b := db.NewBatch()
	accts := make([]*storage.Account, len(reqs))
	id := first
	for i, req := range reqs {
		if res[i].Err != nil {
			continue
		}
		// As CreateAccount: an id whose record exists is refused whatever
		// the reason (another process created it since the sequence was
		// read: then the sequence moved, and the batch is tried again).
		if exists, err := db.AccountExists(id); err != nil {
			b.Discard()
			return err
		} else if exists {
			b.Discard()
			if next, err := db.NextAccountID(); err == nil && next != first {
				return &storage.ConflictError{On: storage.ConflictNextAccountID}
			}
			return fmt.Errorf("%w: account %d exists", ErrIDSpace, id)
		}
		stale, err := staleSkeleton(db, req)
		if err != nil {
			b.Discard()
			return err
		}
		acct := req.Account.Clone()
		acct.ID, acct.SuperID, acct.Login = id, id, req.Login
		putNewAccount(b, acct, req, stale)
		accts[i] = acct
		id++
	}
	b.SetNextAccountIDIf(first, id)
	if err := db.Commit(b); err != nil {
		return err
	}
	for i, a := range accts {
		if a != nil {
			res[i].Account = a
		}
	}
	return nil
}
