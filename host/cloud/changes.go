package cloud

import (
	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// setEnrollment sets the account's cloud switches. Its reply is the
// storage.CloudFlags as committed.
type setEnrollment struct {
	useCloud   bool
	autoUpload *bool // nil: keep the stored value
}

// Apply implements actors.Change.
func (c *setEnrollment) Apply(tx *actors.Tx) (any, error) {
	a := tx.Account()
	a.Cloud.UseCloud = c.useCloud
	if c.autoUpload != nil {
		a.Cloud.AutoUpload = *c.autoUpload
	}
	return a.Cloud, nil
}

// storeObject writes (or replaces) one settings archive of the account. The
// archive was validated by the handler before the change was sent: the
// actor only writes. Tx.PutCloud forces the object's AccountID to the
// actor's own account.
type storeObject struct {
	obj *storage.CloudObject
}

// Apply implements actors.Change.
func (c *storeObject) Apply(tx *actors.Tx) (any, error) {
	tx.PutCloud(c.obj)
	return nil, nil
}

var (
	_ actors.Change = (*setEnrollment)(nil)
	_ actors.Change = (*storeObject)(nil)
)
