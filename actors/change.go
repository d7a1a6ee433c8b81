package actors

import (
	"fmt"

	"github.com/honmaster/masterserver/storage"
)

// A Change is one mutation of one account, described by the area that wants
// it (login, cloud, plinko ...). The account actor calls Apply with a Tx on a
// working copy of the account; when Apply returns nil the actor commits
// everything written to the Tx as one synced batch, adopts the working copy
// and answers Apply's reply. When Apply errs nothing is written and the
// account is unchanged.
//
// Apply runs inside the actor: it must not block on anything but its own
// computation, and must not keep the Tx or the account after returning.
type Change interface {
	Apply(tx *Tx) (reply any, err error)
}

// Tx is the write access a Change gets: the working copy of its own account
// and the records keyed by that account. It cannot reach another account.
type Tx struct {
	id    storage.AccountID
	acct  *storage.Account
	batch *storage.Batch
	db    *storage.DB
	dirty bool
}

// Account returns the working copy for editing. When the change succeeds the
// record is written back and becomes the actor's state.
func (t *Tx) Account() *storage.Account {
	t.dirty = true
	return t.acct
}

// View returns the working copy for reading. A change that only calls View
// leaves the record alone: it is neither written nor adopted, so an edit made
// through View by mistake is dropped from memory and disk alike.
func (t *Tx) View() *storage.Account { return t.acct }

// DB gives read access to storage (for example the account's stored cloud
// archive); writes go through the Tx.
func (t *Tx) DB() *storage.DB { return t.db }

// PutSession stores a session of this account.
func (t *Tx) PutSession(s *storage.Session) error {
	if s.AccountID != t.id {
		return fmt.Errorf("%w: session of account %d written by %d", ErrWrongAccount, s.AccountID, t.id)
	}
	t.batch.PutSession(s)
	return nil
}

// DeleteSession removes a session of this account.
func (t *Tx) DeleteSession(s *storage.Session) error {
	if s.AccountID != t.id {
		return fmt.Errorf("%w: session of account %d deleted by %d", ErrWrongAccount, s.AccountID, t.id)
	}
	t.batch.DeleteSession(s.Cookie)
	return nil
}

// PutCloud stores a settings archive of this account; the object's AccountID
// is forced to the Tx's account.
func (t *Tx) PutCloud(o *storage.CloudObject) {
	o.AccountID = t.id
	t.batch.PutCloud(o)
}
