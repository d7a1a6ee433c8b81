package storage

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"google.golang.org/protobuf/proto"
)

// Batch collects the writes of one mutation; DB.Commit applies them
// atomically. The first encoding error sticks and fails the commit, so
// callers may chain puts and check once. Only package actors creates and
// commits batches (see TestOnlyActorsWrite).
type Batch struct {
	pb  *pebble.Batch
	err error
}

// NewBatch starts an empty batch.
func (db *DB) NewBatch() *Batch { return &Batch{pb: db.pdb.NewBatch()} }

// Discard releases a batch that will not be committed.
func (b *Batch) Discard() { b.pb.Close() }

// Empty reports whether the batch holds no write.
func (b *Batch) Empty() bool { return b.pb.Empty() && b.err == nil }

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

func (b *Batch) del(key []byte) {
	if b.err == nil {
		b.err = b.pb.Delete(key, nil)
	}
}

func (b *Batch) setPB(key []byte, m proto.Message) {
	v, err := encodePB(m)
	b.set(key, v, err)
}

// Stored is what an account's actor keeps of the records it last wrote (or
// loaded), so that a change writes only the records it altered: the decoded
// account those records hold (the actor's own state, which it never edits
// once adopted), not their encodings, which would cost a live account about
// as much memory again.
type Stored struct{ acct *Account }

// PutAccount writes the profile and lists records of a that differ from
// prev (all of them when prev is nil) and returns what is stored once the
// batch commits. Owned upgrades are separate records (PutUpgrades). a must
// not be edited afterwards if the result is passed to a later PutAccount.
// The nickname index follows the profile: its entry is written when prev
// is nil or the nickname changed.
func (b *Batch) PutAccount(a *Account, prev *Stored) *Stored {
	fresh := prev == nil || prev.acct == nil
	if fresh || !sameProfile(prev.acct, a) {
		b.setPB(accountKey(a.ID), toProfile(a))
	}
	if fresh || !sameLists(prev.acct, a) {
		b.setPB(listsKey(a.ID), toLists(a))
	}
	switch {
	case fresh:
		b.putNickname(a.ID, "", a.Nickname)
	case prev.acct.Nickname != a.Nickname:
		b.putNickname(a.ID, prev.acct.Nickname, a.Nickname)
	}
	if b.err != nil {
		return prev
	}
	return &Stored{acct: a}
}

// PutUpgrades writes owned upgrades of account id, one record each; first is
// the position of us[0] in the account's list (the order they were gained).
func (b *Batch) PutUpgrades(id AccountID, first int, us []Upgrade) {
	for i := range us {
		b.setPB(ownedKey(id, us[i].ID), toUpgrade(first+i, &us[i]))
	}
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

// PutSession writes a session under the hash of its cookie.
func (b *Batch) PutSession(s *Session) { b.setPB(sessionKey(s.Key()), toSession(s)) }

// DeleteSession removes the session stored under key (Session.Key).
func (b *Batch) DeleteSession(key [32]byte) { b.del(sessionKey(key)) }

// PutMeta writes a metadata value.
func (b *Batch) PutMeta(name string, value []byte) {
	b.set(metaKey(name), value, nil)
}
