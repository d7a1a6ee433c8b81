package actors

import (
	"fmt"
	"slices"

	"github.com/honmaster/masterserver/storage"
)

// A Change is one mutation of one account, described by the area that wants
// it (an area, or the login service). The account actor calls Apply with a Tx on a
// working copy of the account; when Apply returns nil the actor commits
// everything written to the Tx as one synced batch, adopts the working copy
// and answers Apply's reply. When Apply errs nothing is written and the
// account is unchanged.
//
// Only the records a change altered are written: the profile and lists
// records when their encoding changed, one record per upgrade gained, and
// what the change put in its own keyspaces.
//
// Apply runs inside the actor: it must not block on anything but its own
// computation, and must not keep the Tx or the account after returning. A
// change that edited the account (called Account) must not return it as its
// reply: it becomes the actor's state; return a Clone or the values needed.
type Change interface {
	Apply(tx *Tx) (reply any, err error)
}

// Tx is the write access a Change gets: the working copy of its own account
// and the records keyed by that account. It cannot reach another account.
// It implements storage.AccountWriter, so an area's per-account keyspace is
// written with ks.Put(tx, key, value).
type Tx struct {
	id       storage.AccountID
	index    *storage.OwnedIndex // the upgrades owned before the change
	gained   map[string]struct{} // ids of the upgrades gained so far, once they are many
	gainedN  int                 // how many of them gained indexes
	acct     *storage.Account
	owned    int // len(acct.Upgrades) when the change started
	batch    *storage.Batch
	db       *storage.DB
	dirty    bool
	sessions []sessionWrite
	sessList *sessionList        // the account's list of sessions, once a session write or Sessions read it
	del      *deletion           // set by the deletion change (delete.go)
	areas    **areaState         // the actor's known plugin states and memos (*areas nil: none yet)
	plugSet  entries[[]byte]     // plugin states this change writes
	memoSet  entries[any]        // memos this change sets, kept if it commits
	after    []func(stored bool) // AfterCommit's functions
}

// sessionWrite is a session put (s non-nil) or delete, applied to the
// session cache once the change commits.
type sessionWrite struct {
	key [32]byte
	put bool
	s   storage.CompactSession // as written (a later edit of the caller's Session changes neither)
}

// AfterCommit has f run in the actor once the change's batch has been
// committed, whether or not its asker still waits for the reply (it may
// have given up: ErrTimeout): f(true) once the batch is stored, f(false)
// after a commit of unknown outcome (storage.ErrCommitUncertain: it may be
// stored or not). f runs neither when the change errs nor when the commit
// stored nothing for certain (ErrFenced, a refused write). It is for what
// an area derives in memory from the records it writes (counts), which
// must follow every stored write however its reply fares; the functions
// run in the order they were added, must be quick and must not ask an
// actor; they may read the account's records, as the actor itself does
// (to settle an unknown outcome: f(false)). A panic in f is logged, and
// the reply stays the change's.
func (t *Tx) AfterCommit(f func(stored bool)) { t.after = append(t.after, f) }

// ID is the account the Tx writes.
func (t *Tx) ID() storage.AccountID { return t.id }

// Account returns the working copy for editing. When the change succeeds the
// records it altered are written and the copy becomes the actor's state.
// Owned upgrades may be appended (a.Upgrades = append(a.Upgrades, u), or
// AddUpgrade) but never edited in place.
func (t *Tx) Account() *storage.Account {
	t.dirty = true
	return t.acct
}

// View returns the working copy for reading. A change that only calls View
// leaves the record alone: it is neither written nor adopted, so an edit made
// through View by mistake is dropped from memory and disk alike.
func (t *Tx) View() *storage.Account { return t.acct }

// AddUpgrade gives the account an upgrade unless it owns it already, and
// reports whether it was added. Its cost does not depend on how many
// upgrades the account owns.
func (t *Tx) AddUpgrade(u storage.Upgrade) bool {
	a := t.Account()
	if t.index.Has(u.ID) {
		return false
	}
	tail := a.Upgrades[t.owned:] // gained by this change so far
	if len(tail) < 8 {
		for _, g := range tail {
			if g.ID == u.ID {
				return false
			}
		}
	} else {
		if t.gained == nil {
			t.gained = make(map[string]struct{}, 2*len(tail))
		}
		for _, g := range tail[t.gainedN:] { // also those the change appended itself
			t.gained[g.ID] = struct{}{}
		}
		t.gainedN = len(tail)
		if _, ok := t.gained[u.ID]; ok {
			return false
		}
	}
	a.Upgrades = append(a.Upgrades, u)
	return true
}

// DB gives read access to storage (for example an area's keyspace); writes go through the Tx. Reads see the
// database as of before this change.
func (t *Tx) DB() *storage.DB { return t.db }

// AccountWrites implements storage.AccountWriter: per-account keyspaces
// write through the Tx into its batch.
func (t *Tx) AccountWrites() *storage.AccountWrites { return t.batch.ForAccount(t.id) }

// sessionList is the account's list of sessions as a change leaves it:
// read from storage at the change's first use, written back whole with the
// change's batch when it changed (account.apply).
type sessionList struct {
	list  []*storage.Session
	dirty bool
}

// sessionList reads the account's list of sessions at the first call.
func (t *Tx) sessionList() (*sessionList, error) {
	if t.sessList == nil {
		list, err := t.db.AccountSessions(t.id)
		if err != nil {
			return nil, err
		}
		t.sessList = &sessionList{list: list}
	}
	return t.sessList, nil
}

// without removes the session of key from l.
func (l *sessionList) without(key [32]byte) {
	l.list = slices.DeleteFunc(l.list, func(s *storage.Session) bool { return s.Hash == key })
}

// Sessions returns the account's sessions, expired or not, oldest first,
// as this change leaves them so far (those it put included, those it
// deleted not): each with its Hash, AccountID, Created and Expires (see
// storage.DB.AccountSessions). The actor runs one change of the account at
// a time, so they are all the account has.
func (t *Tx) Sessions() ([]*storage.Session, error) {
	l, err := t.sessionList()
	if err != nil {
		return nil, err
	}
	return slices.Clone(l.list), nil
}

// PutSession stores a session of this account, and its entry in the
// account's list of sessions.
func (t *Tx) PutSession(s *storage.Session) error {
	if s.AccountID != t.id {
		return fmt.Errorf("%w: session of account %d written by %d", ErrWrongAccount, s.AccountID, t.id)
	}
	l, err := t.sessionList()
	if err != nil {
		return err
	}
	key := s.Key()
	l.without(key)
	l.list = append(l.list, &storage.Session{Hash: key, AccountID: s.AccountID, Created: s.Created, Expires: s.Expires})
	l.dirty = true
	t.batch.PutSession(s)
	t.sessions = append(t.sessions, sessionWrite{key: key, put: true, s: s.Compact()})
	return nil
}

// DeleteSession removes a session of this account, and its entry in the
// account's list of sessions.
func (t *Tx) DeleteSession(s *storage.Session) error {
	if s.AccountID != t.id {
		return fmt.Errorf("%w: session of account %d deleted by %d", ErrWrongAccount, s.AccountID, t.id)
	}
	l, err := t.sessionList()
	if err != nil {
		return err
	}
	key := s.Key()
	l.without(key)
	l.dirty = true
	t.batch.DeleteSession(s)
	t.sessions = append(t.sessions, sessionWrite{key: key})
	return nil
}

var _ storage.AccountWriter = (*Tx)(nil)
