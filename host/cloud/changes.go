package cloud

import (
	"errors"
	"fmt"
	"maps"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// setEnrollment sets the account's cloud switches. Its reply is the
// storage.CloudFlags as committed. Switches already as asked write
// nothing and spend nothing.
type setEnrollment struct {
	useCloud   bool
	autoUpload *bool // nil: keep the stored value
	// spend takes the change from the account's and the address's budgets
	// (nil: none), once it is known to write; spent keeps a change run
	// again (a fenced activation's retry) from spending twice.
	spend func() error
	spent bool
}

// apply is the change, run by actors.Apply.
func (c *setEnrollment) apply(tx *actors.Tx) (storage.CloudFlags, error) {
	want := tx.View().Cloud
	want.UseCloud = c.useCloud
	if c.autoUpload != nil {
		want.AutoUpload = *c.autoUpload
	}
	if want == tx.View().Cloud {
		return want, nil
	}
	if c.spend != nil && !c.spent {
		if err := c.spend(); err != nil {
			return tx.View().Cloud, err
		}
		c.spent = true
	}
	tx.Account().Cloud = want
	return want, nil
}

// storeObject writes (or replaces) one settings archive of the account. The
// archive was validated by the handler before the change was sent: the
// actor only writes, into its own account's keyspace (the object's
// AccountID is set to that account).
type storeObject struct {
	obj   *Archive
	quota Quota
}

// Quota bounds what one account stores: buckets, and bytes over all of them.
// Zero fields are no limit. An upload fits when the other buckets' records
// as stored plus the upload's archive bytes are within Bytes: its own
// record's header (under 300 bytes) is not counted, so that an archive of
// cloud.max_upload always fits a quota of that size.

type Quota struct {
	Buckets int
	Bytes   int64
}

// The quota refusals of storeObject; nothing is written.
var (
	errTooManyBuckets = errors.New("too many buckets")
	errQuota          = errors.New("cloud quota exceeded")
)

// sizesMemo is the actor memo (actors.Tx.Memo) holding the account's
// stored bucket sizes (a bucketSizes, as Sizes reads them),
// so that a store does not scan the account's archives each time (a third
// of a store's CPU under load). storeObject is the only writer of cloud
// records and keeps it current.
const sizesMemo = "cloud.sizes"

// bucketSizes maps bucket to stored size; never edited once remembered.
type bucketSizes map[string]int64

// Apply implements actors.Change. The quota is checked here, in the
// account's actor, so that concurrent uploads cannot overshoot it together.
func (c *storeObject) Apply(tx *actors.Tx) (any, error) {
	c.obj.AccountID = tx.ID()
	if c.quota.Buckets == 0 && c.quota.Bytes == 0 {
		return nil, archives.Put(tx, c.obj.Bucket, c.obj)
	}
	sizes, _ := tx.Memo(sizesMemo).(bucketSizes)
	if sizes == nil {
		read, err := Sizes(tx.DB(), tx.ID())
		if err != nil {
			return nil, err
		}
		sizes = read
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
	if err := archives.Put(tx, c.obj.Bucket, c.obj); err != nil {
		return nil, err
	}
	next := maps.Clone(sizes)
	next[c.obj.Bucket] = storedSize(c.obj) // what Sizes would read back
	tx.SetMemo(sizesMemo, next)
	return nil, nil
}

var (
	_ actors.ChangeFunc[storage.CloudFlags] = (*setEnrollment)(nil).apply
	_ actors.Change                         = (*storeObject)(nil)
)
