package cloud

import (
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/actors"
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
// actor only writes, into its own account's keyspace (the object's
// AccountID is set to that account).
type storeObject struct {
	obj   *Archive
	quota Quota
}

// Quota bounds what one account stores: buckets, and bytes over all of them
// (as stored). Zero fields are no limit.
type Quota struct {
	Buckets int
	Bytes   int64
}

// The quota refusals of storeObject; nothing is written.
var (
	errTooManyBuckets = errors.New("too many buckets")
	errQuota          = errors.New("cloud quota exceeded")
)

// Apply implements actors.Change. The quota is checked here, in the
// account's actor, so that concurrent uploads cannot overshoot it together.
func (c *storeObject) Apply(tx *actors.Tx) (any, error) {
	if c.quota.Buckets > 0 || c.quota.Bytes > 0 {
		sizes, err := Sizes(tx.DB(), tx.ID())
		if err != nil {
			return nil, err
		}
		old, replacing := sizes[c.obj.Bucket]
		if !replacing && c.quota.Buckets > 0 && len(sizes) >= c.quota.Buckets {
			return nil, fmt.Errorf("%w: %d stored, limit %d", errTooManyBuckets, len(sizes), c.quota.Buckets)
		}
		var total int64
		for _, n := range sizes {
			total += n
		}
		if after := total - old + int64(len(c.obj.Data)); c.quota.Bytes > 0 && after > c.quota.Bytes {
			return nil, fmt.Errorf("%w: %d bytes after this upload, limit %d", errQuota, after, c.quota.Bytes)
		}
	}
	c.obj.AccountID = tx.ID()
	return nil, archives.Put(tx, c.obj.Bucket, c.obj)
}

var (
	_ actors.Change = (*setEnrollment)(nil)
	_ actors.Change = (*storeObject)(nil)
)
