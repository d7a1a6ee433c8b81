package storage

import (
	"bytes"
	"errors"
	"fmt"
)

// AccountRecords are the keys of every record of one account, found by
// DB.AccountRecords: what deleting the account removes. Storage knows no
// area: it finds an area's records by the key families of keys.go and by
// the keyspaces present on disk (x/, i/, pluginstate/), whatever declared
// them, so a keyspace added later is covered without a change here.
type AccountRecords struct {
	Login string
	// Sessions are the keys (Session.Key) of the account's sessions, so
	// that the caller can drop them from a session cache too.
	Sessions [][32]byte
	// SubAccounts are the account's sub-accounts (of a main account). They
	// are not part of Keys: each is deleted through its own actor first.
	SubAccounts []AccountID
	// Counts is the number of keys per family or keyspace ("profile",
	// "sessions", "x/guides.vote", "i/reports.queue", "pluginstate/guides"...).
	Counts map[string]int

	keys [][]byte
}

// Len is the number of records.
func (r *AccountRecords) Len() int { return len(r.keys) }

func (r *AccountRecords) add(family string, key []byte) {
	r.keys = append(r.keys, append([]byte(nil), key...))
	r.Counts[family]++
}

// AccountRecords finds every record of account id:
//
//   - its profile, lists, credentials and owned upgrades (a/, b/, v/,
//     o/), its login (l/)
//     and its look-alike skeleton entry (k/, found by the owners index
//     r/<id>, owners.go),
//     its entry in its main account's sub-account index (u/<super><id>), its
//     records in keyspaces at a fixed one-letter prefix (c/: cloud archives);
//   - its sessions (s/, found by its list of sessions t/<id>, deleted with
//     them);
//   - its records in every per-account keyspace (x/<name>/<id>...);
//   - the entries it wrote in every index keyspace (i/<name>/...<id>: found
//     by the owners index, with the owners entries themselves). Entries
//     other accounts wrote about it (a report against it) are theirs and
//     are not included;
//   - its plugin state of every area (pluginstate/<area>/<id>).
//
// Global records (g/), kept counts (n/: an area's delete hook zeroes what
// the account fed) and metadata (m/) belong to no account; the owner
// record (e/) stays, so that an epoch is never given twice. It reads
// storage directly: call it inside the account's actor (the deletion
// change), where no other write of the account can interleave.
func (db *DB) AccountRecords(id AccountID) (*AccountRecords, error) {
	a, err := db.AccountProfile(id)
	if err != nil {
		return nil, err
	}
	r := &AccountRecords{Login: a.Login, Counts: map[string]int{}}
	r.add("profile", accountKey(id)) // read just now
	if ok, err := db.has(listsKey(id)); err != nil {
		return nil, err
	} else if ok {
		r.add("lists", listsKey(id))
	}
	if ok, err := db.has(credsKey(id)); err != nil {
		return nil, err
	} else if ok {
		r.add("credentials", credsKey(id))
	}
	if lid, err := db.LoginID(a.Login); err == nil && lid == id {
		r.add("login", loginKey(a.Login))
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	if a.SuperID != 0 && a.SuperID != id {
		if ok, err := db.has(subKey(a.SuperID, id)); err != nil {
			return nil, err
		} else if ok {
			r.add("sub_index", subKey(a.SuperID, id))
		}
	}
	if r.SubAccounts, err = db.SubAccounts(id); err != nil {
		return nil, err
	}
	if err := db.scan(ownedPrefix(id), func(k, _ []byte) error { r.add("upgrades", k); return nil }); err != nil {
		return nil, err
	}
	// Keyspaces at a fixed one-letter prefix (NewAccountKeyspaceAt):
	// <letter>/<id:4><key>. Every letter storage does not use itself is
	// looked at, declared in this process or not, so that no area's
	// records outlive the account because its package was not linked.
	for c := byte('a'); c <= 'z'; c++ {
		prefix := string([]byte{c, '/'})
		if ownPrefixes[prefix] {
			continue
		}
		family := fixedKeyspaceName(prefix)
		if err := db.scan(appendID([]byte(prefix), id), func(k, _ []byte) error { r.add(family, k); return nil }); err != nil {
			return nil, err
		}
	}
	sessions, err := db.AccountSessions(id)
	if err != nil {
		return nil, err
	}
	for _, s := range sessions {
		r.Sessions = append(r.Sessions, s.Hash)
		r.add("sessions", sessionKey(s.Hash))
	}
	if len(sessions) > 0 {
		r.keys = append(r.keys, accountSessionsKey(id)) // the list: deleted with them, not counted
	}
	// Per-account keyspaces: x/<name>/<id:4><key>, for every name on disk.
	err = db.eachSubPrefix([]byte(prefixAcctKS), func(ks []byte) error {
		p := appendID(append([]byte(nil), ks...), id)
		return db.scan(p, func(k, _ []byte) error { r.add(string(ks[:len(ks)-1]), k); return nil })
	})
	if err != nil {
		return nil, err
	}
	// Its entries in the shared indexes, from the owners index (r/<id>):
	// index keyspace entries (i/<name>/<key><writer:4>) and its login's
	// look-alike skeleton entry (k/<skeleton>), which is its only while
	// it points at the account.
	idBytes := appendID(nil, id)
	err = db.eachOwned(id, func(k, ok []byte) error {
		r.keys = append(r.keys, ok) // the owners entry: deleted with what it names, not counted
		switch {
		case bytes.HasPrefix(k, []byte(prefixIndex)):
			if len(k) > 4 && bytes.Equal(k[len(k)-4:], idBytes) {
				name, _, _ := bytes.Cut(k[len(prefixIndex):], []byte("/"))
				r.add(prefixIndex+string(name), k)
			}
		case bytes.HasPrefix(k, []byte(prefixSkeleton)):
			v, err := db.get(k)
			if err == nil && bytes.Equal(v, idBytes) {
				r.add("login_skeleton", k)
			} else if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Plugin state: pluginstate/<area>/<id:4>, for every area on disk.
	err = db.eachSubPrefix([]byte(prefixPluginState), func(area []byte) error {
		k := appendID(append([]byte(nil), area...), id)
		if _, err := db.get(k); err == nil {
			r.add(string(area[:len(area)-1]), k)
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// eachSubPrefix calls fn with every distinct "<p><name>/" present under
// prefix p (names hold no '/'), seeking past each name's records rather
// than reading them.
func (db *DB) eachSubPrefix(p []byte, fn func(sub []byte) error) error {
	var subs [][]byte
	hi := prefixEnd(p)
	for lo := p; ; {
		var sub []byte
		err := db.eng.scan(lo, hi, func(k, _ []byte) error {
			rest := k[len(p):]
			i := bytes.IndexByte(rest, '/')
			if i < 0 {
				return fmt.Errorf("%w: key %q without a keyspace name", ErrCorrupt, k)
			}
			sub = append(append([]byte(nil), p...), rest[:i+1]...)
			return errStop // one key is enough: the next scan starts past the name
		})
		if err != nil && !errors.Is(err, errStop) {
			return err
		}
		if sub == nil {
			break
		}
		subs = append(subs, sub)
		if lo = prefixEnd(sub); lo == nil {
			break
		}
	}
	for _, s := range subs {
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}

// DeleteAccountRecords deletes every record r lists, in this batch.
func (b *Batch) DeleteAccountRecords(r *AccountRecords) {
	for _, k := range r.keys {
		b.del(k)
	}
}
