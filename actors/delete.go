package actors

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/honmaster/masterserver/storage"
)

// ErrHasSubAccounts refuses to delete a main account that still has
// sub-accounts: delete them first (host/accounts does, each through its
// own actor).
var ErrHasSubAccounts = errors.New("actors: the account has sub-accounts")

// A DeleteHook keeps what an area derives from an account's records right
// when the account is deleted (a guide's vote counts, a cache keyed by the
// account). It runs inside the account's actor, before the deletion
// commits: reads through tx.DB() still see every record being deleted. It
// must not write records; it may change kept counts the account's records
// fed (storage.ResetMember), which commit with the deletion. It returns a function to run after the commit (nil for
// none), or an error, which refuses the deletion (nothing is written).
type DeleteHook func(tx *Tx) (after func(), err error)

type deleteHooks struct {
	mu sync.Mutex
	hs []DeleteHook
}

func (d *deleteHooks) list() []DeleteHook {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]DeleteHook(nil), d.hs...)
}

// OnDelete registers a hook that runs at every account deletion (call it
// while the server is being built, before it serves).
func (s *System) OnDelete(h DeleteHook) {
	s.deleteHooks.mu.Lock()
	defer s.deleteHooks.mu.Unlock()
	s.deleteHooks.hs = append(s.deleteHooks.hs, h)
}

// Deleted tells what an account deletion removed.
type Deleted struct {
	ID    storage.AccountID
	Login string
	// Records is the number of records deleted; Counts splits them by key
	// family or keyspace (see storage.AccountRecords).
	Records int
	Counts  map[string]int
}

// deletion is what the deletion change leaves for its actor to do once
// its commit succeeded.
type deletion struct {
	after []func()
}

// DeleteAccount deletes account id and every record of it
// (storage.AccountRecords) in one synced commit of its own actor, after
// the hooks (OnDelete) have seen them; once it commits, the actor holds no
// state, every later request to the account is ErrNoAccount, its sessions
// leave the session cache and the hooks' after functions run. A main
// account with sub-accounts is refused with ErrHasSubAccounts. The
// account's id is never given again (ids come from a sequence); its login
// may be registered again.
func (s *System) DeleteAccount(ctx context.Context, id storage.AccountID) (*Deleted, error) {
	res, err := s.Apply(ctx, id, &deleteChange{hooks: s.deleteHooks.list()})
	if err != nil {
		return nil, err
	}
	return res.(*Deleted), nil
}

// deleteChange is the deletion, run as a Change so that it is serialised
// with every other write of the account.
type deleteChange struct{ hooks []DeleteHook }

func (c *deleteChange) Apply(tx *Tx) (any, error) {
	r, err := tx.db.AccountRecords(tx.id)
	if err != nil {
		return nil, err
	}
	if len(r.SubAccounts) > 0 {
		return nil, fmt.Errorf("%w: %d of them", ErrHasSubAccounts, len(r.SubAccounts))
	}
	d := &deletion{}
	for _, h := range c.hooks {
		after, err := h(tx)
		if err != nil {
			return nil, err
		}
		if after != nil {
			d.after = append(d.after, after)
		}
	}
	if tx.dirty || tx.batch.WritesRecords() || len(tx.memoSet) > 0 { // sessions and plugin states are batch writes too
		// A hook sees the records; any write of its would outlive the
		// account (or be deleted with it unseen). Kept counts belong to
		// no account: a hook keeps them right.
		return nil, fmt.Errorf("%w: a delete hook wrote to the account", ErrBadEdit)
	}
	tx.batch.DeleteAccountRecords(r)
	for _, k := range r.Sessions {
		tx.sessions = append(tx.sessions, sessionWrite{key: k})
	}
	tx.del = d
	return &Deleted{ID: tx.id, Login: r.Login, Records: r.Len(), Counts: r.Counts}, nil
}

// deletedIfGone settles a deletion whose commit's outcome is unknown: when
// the account's record is gone, the deletion is stored and is finished as
// one that committed (deleted: the hooks' after functions run, so that
// what the areas derive from the account's records, such as the guides'
// vote counts, follows it); when it is there, nothing was deleted; when
// storage cannot tell, the actor reloads at its next request
// (forgetUncertain) and the after functions do not run, which the log says.
func (a *account) deletedIfGone(d *deletion) {
	ok, err := a.sys.db.AccountExists(a.id)
	switch {
	case err != nil:
		a.sys.opts.Logger.Error("a deletion's outcome is unknown and its account cannot be read; what the areas derive from it may count it until restart",
			"account", a.id, "err", err)
	case !ok:
		a.deleted(d)
	}
}

// deleted drops the actor's state after the deletion committed and runs
// the hooks' after functions.
func (a *account) deleted(d *deletion) {
	a.state, a.all, a.index, a.err = nil, nil, nil, ErrNoAccount
	a.slot.state.Store(nil)
	for _, f := range d.after {
		a.runAfter(f) // one hook's panic neither fails the deletion, which is stored, nor skips the others
	}
}
