package storage

import (
	"encoding/binary"
	"fmt"
)

// prefixAccountSession is the index of sessions by account (schema version
// 6): t/<id:4><created:8><hash:32> for every session s/<hash>, its value
// the session's expiry (8 bytes, big-endian Unix nanoseconds). Written and
// deleted with the session in the same batch, so that the account's actor
// finds its sessions, oldest first, by one short scan: the login's limit of
// sessions per account, ending an account's sessions and deleting the
// account never read every session, and no process keeps them in memory.
const prefixAccountSession = "t/"

// accountSessionPrefix is the prefix of account id's entries.
func accountSessionPrefix(id AccountID) []byte { return appendID([]byte(prefixAccountSession), id) }

// accountSessionKey is the index entry of session s (of s.AccountID,
// created at s.Created, stored under s.Key()).
func accountSessionKey(s *Session) []byte {
	k := binary.BigEndian.AppendUint64(accountSessionPrefix(s.AccountID), uint64(nanos(s.Created)))
	h := s.Key()
	return append(k, h[:]...)
}

// PutSession writes a session under the hash of its cookie, with its entry
// in its account's session index.
func (b *Batch) PutSession(s *Session) {
	b.setPB(sessionKey(s.Key()), toSession(s))
	b.set(accountSessionKey(s), binary.BigEndian.AppendUint64(nil, uint64(nanos(s.Expires))), nil)
}

// DeleteSession removes session s (found by its key, Session.Key) and its
// entry in its account's session index (found by its account and creation
// time, which s must carry as stored: a session read back from storage or
// the session cache does).
func (b *Batch) DeleteSession(s *Session) {
	b.del(sessionKey(s.Key()))
	b.del(accountSessionKey(s))
}

// AccountSessions returns the sessions of account id, expired or not,
// oldest first, from the account's session index: each with its Hash,
// AccountID, Created and Expires (not its cookie, super account or
// address, which the index does not hold; SessionByKey reads them).
// Call it inside the account's actor (tx.DB()) to act on the list: only
// that actor writes the account's sessions.
func (db *DB) AccountSessions(id AccountID) ([]*Session, error) {
	var list []*Session
	p := accountSessionPrefix(id)
	err := db.scan(p, func(k, v []byte) error {
		rest := k[len(p):]
		if len(rest) != 8+32 || len(v) != 8 {
			return fmt.Errorf("%w: session index entry of %d bytes, value of %d", ErrCorrupt, len(k), len(v))
		}
		s := &Session{AccountID: id, Created: unixNano(int64(binary.BigEndian.Uint64(rest))),
			Expires: unixNano(int64(binary.BigEndian.Uint64(v)))}
		copy(s.Hash[:], rest[8:])
		list = append(list, s)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("storage: sessions of account %d: %w", id, err)
	}
	return list, nil
}

// migrateAccountSessions writes the session index entry of every stored
// session (schema version 5 to 6), in chunks that each commit on their
// own. A crash part way leaves version 5 recorded and some entries
// written; the next open writes them all again (the same keys and
// values). It does not record the version; the caller does.
func migrateAccountSessions(db *DB) (int, error) {
	n := 0
	c := newChunked(db)
	err := db.EachSession(func(s *Session) error {
		c.b.set(accountSessionKey(s), binary.BigEndian.AppendUint64(nil, uint64(nanos(s.Expires))), nil)
		n++
		return c.flush()
	})
	return n, c.finish(err)
}
