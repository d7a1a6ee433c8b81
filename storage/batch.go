package storage

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Batch collects the writes of one mutation; DB.Commit applies them
// atomically. The first encoding error sticks and fails the commit, so
// callers may chain puts and check once.
type Batch struct {
	pb  *pebble.Batch
	err error
}

// NewBatch starts an empty batch.
func (db *DB) NewBatch() *Batch { return &Batch{pb: db.pdb.NewBatch()} }

// Discard releases a batch that will not be committed.
func (b *Batch) Discard() { b.pb.Close() }

func (b *Batch) set(key, value []byte, err error) {
	if b.err != nil {
		return
	}
	if err != nil {
		b.err = fmt.Errorf("storage: encode %q: %w", key[:2], err)
		return
	}
	b.err = b.pb.Set(key, value, nil)
}

// PutAccount writes an account record.
func (b *Batch) PutAccount(a *Account) {
	v, err := encodeJSON(a)
	b.set(accountKey(a.ID), v, err)
}

// PutLogin maps a login to its account.
func (b *Batch) PutLogin(login string, id AccountID) {
	b.set(loginKey(login), appendID(nil, id), nil)
}

// PutSubAccount records id as a sub-account of super.
func (b *Batch) PutSubAccount(super, id AccountID) {
	b.set(subKey(super, id), nil, nil)
}

// SetNextAccountID stores the id the next created account gets.
func (b *Batch) SetNextAccountID(id AccountID) {
	b.set(metaKey(metaNextAccountID), appendID(nil, id), nil)
}

// PutSession writes a session.
func (b *Batch) PutSession(s *Session) {
	v, err := encodeJSON(s)
	b.set(sessionKey(s.Cookie), v, err)
}

// DeleteSession removes a session.
func (b *Batch) DeleteSession(cookie string) {
	if b.err == nil {
		b.err = b.pb.Delete(sessionKey(cookie), nil)
	}
}

// PutCloud writes (or replaces) a settings archive.
func (b *Batch) PutCloud(o *CloudObject) {
	v, err := encodeCloud(o)
	b.set(cloudKey(o.AccountID, o.Bucket), v, err)
}

// PutMeta writes a metadata value.
func (b *Batch) PutMeta(name string, value []byte) {
	b.set(metaKey(name), value, nil)
}

// PutCatalog replaces the Plinko catalog.
func (b *Batch) PutCatalog(c *Catalog) {
	v, err := encodeJSON(c)
	b.set(metaKey(metaCatalog), v, err)
}
