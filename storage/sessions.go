package storage

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// prefixAccountSession holds each account's list of sessions (schema
// version 6): t/<id:4>, a value of the format byte then, for each session
// of the account, oldest first, its key (the SHA-256 of its cookie, 32
// bytes), creation and expiry (8 bytes each, big-endian Unix nanoseconds).
// The account's actor rewrites it in the batch that puts or deletes one of
// its sessions (actors.Tx), so that it finds its sessions by one read: the
// login's limit of sessions per account, ending an account's sessions and
// deleting the account never read every session, and no process keeps them
// all in memory. One record rather than a key per session, so that a read
// never steps over the tombstones of the sessions ended before (a player
// switching sub-accounts ends one at each switch past the limit).
const prefixAccountSession = "t/"

// sessionEntrySize is the size of one session in an account's list.
const sessionEntrySize = 32 + 8 + 8

func accountSessionsKey(id AccountID) []byte { return appendID([]byte(prefixAccountSession), id) }

// AccountSessions returns the sessions of account id, expired or not,
// oldest first, from its list: each with its Hash, AccountID, Created and
// Expires (not its cookie, super account or address, which the list does
// not hold; SessionByKey reads them). An account without sessions has an
// empty list. Call it inside the account's actor (actors.Tx.Sessions) to
// act on the list: only that actor writes the account's sessions.
func (db *DB) AccountSessions(id AccountID) ([]*Session, error) {
	v, err := db.get(accountSessionsKey(id))
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err == nil {
		var list []*Session
		if list, err = decodeAccountSessions(id, v); err == nil {
			return list, nil
		}
	}
	return nil, fmt.Errorf("storage: sessions of account %d: %w", id, err)
}

func decodeAccountSessions(id AccountID, v []byte) ([]*Session, error) {
	if len(v) == 0 || v[0] != formatV2 || (len(v)-1)%sessionEntrySize != 0 {
		return nil, fmt.Errorf("%w: a list of sessions of %d bytes", ErrCorrupt, len(v))
	}
	list := make([]*Session, 0, (len(v)-1)/sessionEntrySize)
	for b := v[1:]; len(b) > 0; b = b[sessionEntrySize:] {
		s := &Session{AccountID: id, Created: unixNano(int64(binary.BigEndian.Uint64(b[32:]))),
			Expires: unixNano(int64(binary.BigEndian.Uint64(b[40:])))}
		copy(s.Hash[:], b[:32])
		list = append(list, s)
	}
	return list, nil
}

// PutAccountSessions writes the list of sessions of account id (by their
// keys, creation and expiry), ordered oldest first; an empty list deletes
// it. actors.Tx writes it with the sessions themselves.
func (b *Batch) PutAccountSessions(id AccountID, list []*Session) {
	if len(list) == 0 {
		b.del(accountSessionsKey(id))
		return
	}
	sorted := slices.SortedStableFunc(slices.Values(list), func(x, y *Session) int { return cmp.Compare(nanos(x.Created), nanos(y.Created)) })
	v := make([]byte, 1, 1+len(list)*sessionEntrySize)
	v[0] = formatV2
	for _, s := range sorted {
		h := s.Key()
		v = append(v, h[:]...)
		v = binary.BigEndian.AppendUint64(v, uint64(nanos(s.Created)))
		v = binary.BigEndian.AppendUint64(v, uint64(nanos(s.Expires)))
	}
	b.set(accountSessionsKey(id), v, nil)
}

// PutSession writes a session under the hash of its cookie. Its account's
// list of sessions is the caller's to write (PutAccountSessions): the
// account's actor does it for every change (actors.Tx.PutSession).
func (b *Batch) PutSession(s *Session) { b.setPB(sessionKey(s.Key()), toSession(s)) }

// DeleteSession removes session s (found by its key, Session.Key). Its
// account's list is the caller's to write, as for PutSession.
func (b *Batch) DeleteSession(s *Session) { b.del(sessionKey(s.Key())) }

// migrateAccountSessions writes every account's list of sessions from the
// stored sessions (schema version 5 to 6), in chunks that each commit on
// their own. The sessions are grouped by account in memory first (about
// 100 bytes each: sessions live a day, so they number about a day's
// logins). A crash part way leaves version 5 recorded and some lists
// written; the next open writes them all again, whole. It does not record
// the version; the caller does.
func migrateAccountSessions(db *DB) (int, error) {
	byAccount := map[AccountID][]*Session{}
	err := db.EachSession(func(s *Session) error {
		byAccount[s.AccountID] = append(byAccount[s.AccountID], s)
		return nil
	})
	if err != nil {
		return 0, err
	}
	n := 0
	c := newChunked(db)
	for _, id := range slices.Sorted(maps.Keys(byAccount)) {
		c.b.PutAccountSessions(id, byAccount[id])
		n += len(byAccount[id])
		if err = c.flush(); err != nil {
			break
		}
	}
	return n, c.finish(err)
}
