package storage

import (
	"fmt"

	"google.golang.org/protobuf/proto"
)

// Batch collects the writes of one mutation; DB.Commit applies them
// atomically. The first encoding error sticks and fails the commit, so
// callers may chain puts and check once. Only package actors creates and
// commits batches (see TestOnlyActorsWrite).
type Batch struct {
	eb    engineBatch
	conds conditions // see conditions.go
	err   error
}

// NewBatch starts an empty batch.
func (db *DB) NewBatch() *Batch { return &Batch{eb: db.eng.newBatch()} }

// Discard releases a batch that will not be committed.
func (b *Batch) Discard() { b.eb.release() }

// Empty reports whether the batch holds no write (a Fence is no write).
func (b *Batch) Empty() bool { return b.eb.empty() && !b.conds.writes() && b.err == nil }

// WritesRecords reports whether the batch writes anything but kept counts
// (count operations, counts.go).
func (b *Batch) WritesRecords() bool {
	return !b.eb.empty() || len(b.conds.news) > 0 || len(b.conds.swaps) > 0 || b.err != nil
}

func (b *Batch) set(key, value []byte, err error) {
	if b.err != nil {
		return
	}
	if err != nil {
		b.err = fmt.Errorf("storage: encode %q: %w", key[:2], err)
		return
	}
	b.err = b.eb.set(key, value)
}

func (b *Batch) del(key []byte) {
	if b.err == nil {
		b.err = b.eb.del(key)
	}
}

// setEncoded writes a record of size bytes under key, encoded by enc
// straight into the batch's own space (no intermediate buffer). enc gets
// an empty slice capped at size, so an encoding that did not fit would
// reallocate (and be refused here) instead of writing past it.
//
// It returns the encoding's error, which also fails the batch (the
// half-written record never commits).
func (b *Batch) setEncoded(key []byte, size int, enc func(dst []byte) ([]byte, error)) error {
	if b.err != nil {
		return nil // the batch failed already; Commit says why
	}
	k, v := b.eb.setDeferred(len(key), size)
	copy(k, key)
	out, err := enc(v[:0:size])
	if err == nil && (len(out) != size || (size > 0 && &out[0] != &v[0])) {
		err = fmt.Errorf("encoded %d bytes where %d were reserved", len(out), size)
	}
	if err != nil {
		b.err = fmt.Errorf("storage: encode %q: %w", key[:2], err)
		return err // unwrapped: the caller names the record
	}
	b.err = b.eb.finishDeferred()
	return nil
}

// setPB writes m as a record (format byte, then m) straight into the
// batch: a drop's profile record is encoded on every drop.
func (b *Batch) setPB(key []byte, m proto.Message) {
	var c protoCodec[proto.Message]
	n, _ := c.EncodedSize(m)
	_ = b.setEncoded(key, n, func(dst []byte) ([]byte, error) { return c.AppendEncoded(dst, m) }) // an error fails the batch
}

// PutAccount writes the profile, lists and credentials records of a that
// differ from prev, the account as its records are stored now (nil: none
// stored yet, all are written), so that a change writes only the records
// it altered. The credentials record is written only when a's SRP differs
// from prev's: a state that went without them (DropCredentials) and a
// change that left them alone write nothing of them, and read nothing.
// An account's actor passes its own state, which it never edits once
// adopted: the decoded records, not their encodings, which would cost a
// live account about as much memory again. Owned upgrades are separate
// records (PutUpgrades). The nickname index follows the profile: its entry
// is written when prev is nil or the nickname changed.
func (b *Batch) PutAccount(a, prev *Account) {
	fresh := prev == nil
	if fresh || !sameProfile(prev, a) {
		sc := profileOf(a)
		b.setPB(accountKey(a.ID), &sc.p)
		sc.release()
	}
	if fresh || !a.SRP.equal(prev.SRP) {
		b.putCredentials(a.ID, a.SRP)
	}
	if fresh || !sameLists(prev, a) {
		b.setPB(listsKey(a.ID), toLists(a))
	}
	switch {
	case fresh:
		b.putNickname(a.ID, "", a.Nickname)
	case prev.Nickname != a.Nickname:
		b.putNickname(a.ID, prev.Nickname, a.Nickname)
	}
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

// PutMeta writes a metadata value.
func (b *Batch) PutMeta(name string, value []byte) {
	b.set(metaKey(name), value, nil)
}
