package storage

import (
	"strings"
)

// nicknameIndex finds accounts by nickname (the name players see and
// report), which is not their login once an operator set another one:
//
//	i/accounts.nickname/<lower-cased nickname>\x00<id:4>   (empty value)
//
// An account's entry is written with its profile record, in the same
// batch (Batch.PutAccount): by the registry when it creates the account,
// by the account's actor when a change alters the nickname, and by the
// migration to schema version 3 for accounts created before. Nicknames are
// not unique: several accounts may share an entry's key part.
var nicknameIndex = NewIndexKeyspace[struct{}]("accounts.nickname", emptyCodec{})

type emptyCodec struct{}

func (emptyCodec) Encode(struct{}) ([]byte, error) { return []byte{}, nil }
func (emptyCodec) Decode([]byte) (struct{}, error) { return struct{}{}, nil }

// nicknameKey is the index key of a nickname: folded to lower case and
// terminated, so that a nickname's entries are never a prefix of a longer
// one's.
func nicknameKey(nickname string) string { return strings.ToLower(nickname) + "\x00" }

// putNickname moves account id's index entry from old to nickname (old ""
// when it has none).
func (b *Batch) putNickname(id AccountID, old, nickname string) {
	w := indexWriter{b.ForAccount(id)}
	if old != "" {
		nicknameIndex.Delete(w, nicknameKey(old))
	}
	if nickname != "" {
		if err := nicknameIndex.Put(w, nicknameKey(nickname), struct{}{}); err != nil && b.err == nil {
			b.err = err
		}
	}
}

type indexWriter struct{ w *AccountWrites }

func (i indexWriter) AccountWrites() *AccountWrites { return i.w }

// NicknameAccounts returns, in id order, the accounts whose nickname is
// nickname ignoring case (strings.ToLower). Callers that need one account
// pick among them (the exact spelling first).
func (db *DB) NicknameAccounts(nickname string) ([]AccountID, error) {
	if nickname == "" {
		return nil, nil
	}
	key := nicknameKey(nickname)
	var ids []AccountID
	err := nicknameIndex.Each(db, key, func(k string, id AccountID, _ struct{}) error {
		if k == key { // a nickname holding "\x00" would otherwise match
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
}
