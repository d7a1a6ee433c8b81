package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// testSession is session n of account id, created n minutes after base.
func testSession(id AccountID, n int) *Session {
	base := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	created := base.Add(time.Duration(n) * time.Minute)
	return &Session{Cookie: fmt.Sprintf("%016x%016x", uint64(id), uint64(n)), AccountID: id, SuperID: id,
		IP: "192.0.2.1", Created: created, Expires: created.Add(24 * time.Hour)}
}

// putOnlySession writes session s, the only one of its account, with its
// account's list of sessions (as actors.Tx does).
func putOnlySession(b *Batch, s *Session) {
	b.PutSession(s)
	b.PutAccountSessions(s.AccountID, []*Session{s})
}

// indexedAs is s as AccountSessions returns it.
func indexedAs(s *Session) *Session {
	return &Session{Hash: s.Key(), AccountID: s.AccountID, Created: s.Created, Expires: s.Expires}
}

// TestAccountSessions: an account's sessions are listed oldest first from
// its list, whatever order it was given in and whatever other accounts
// hold; an empty list deletes the record; deleting the account's records
// (AccountRecords) deletes its sessions and its list.
func TestAccountSessions(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		a := sampleAccount(7, "seven")
		mine := []*Session{testSession(7, 3), testSession(7, 1), testSession(7, 2)}
		other := testSession(8, 0)
		commitRaw(t, db, func(b *Batch) {
			b.PutAccount(a, nil)
			b.PutLogin(a.Login, a.ID)
			for _, s := range mine {
				b.PutSession(s)
			}
			b.PutAccountSessions(7, mine)
			b.PutSession(other)
			b.PutAccountSessions(8, []*Session{other})
		})
		want := []*Session{indexedAs(mine[1]), indexedAs(mine[2]), indexedAs(mine[0])}
		if got, err := db.AccountSessions(7); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("AccountSessions(7) = %v, %v;\nwant %v", got, err, want)
		}
		if got, err := db.AccountSessions(9); err != nil || len(got) != 0 {
			t.Fatalf("AccountSessions of an account without sessions = %v, %v", got, err)
		}

		r, err := db.AccountRecords(7)
		if err != nil {
			t.Fatal(err)
		}
		if r.Counts["sessions"] != 3 || len(r.Sessions) != 3 {
			t.Fatalf("AccountRecords: %d sessions counted, %d listed; want 3", r.Counts["sessions"], len(r.Sessions))
		}
		commitRaw(t, db, func(b *Batch) {
			for _, k := range r.keys {
				b.del(k)
			}
		})
		for _, s := range mine {
			if _, err := db.SessionByKey(s.Key()); !errors.Is(err, ErrNotFound) {
				t.Fatalf("a session of the deleted account's records: %v", err)
			}
		}
		if keys := scanKeys(t, db, []byte(prefixAccountSession)); !reflect.DeepEqual(keys, []string{string(accountSessionsKey(8))}) {
			t.Fatalf("lists left after account 7's records went: %q, want account 8's only", keys)
		}
		commitRaw(t, db, func(b *Batch) { b.PutAccountSessions(8, nil) })
		if keys := scanKeys(t, db, []byte(prefixAccountSession)); len(keys) != 0 {
			t.Fatalf("an empty list is still stored: %q", keys)
		}
	})
}

// TestAccountSessionsCorrupt: a list whose length is no whole number of
// entries is refused as corrupt, not read short.
func TestAccountSessionsCorrupt(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		commitRaw(t, db, func(b *Batch) { b.set(accountSessionsKey(3), []byte{formatV2, 1, 2, 3}, nil) })
		if _, err := db.AccountSessions(3); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("AccountSessions of a short list: %v; want ErrCorrupt", err)
		}
	})
}

// writeV5Sessions stores n sessions of accounts 1..n/2 as schema version 5
// did (s/ records, no index) and records version 5.
func writeV5Sessions(t *testing.T, db *DB, n int) []*Session {
	t.Helper()
	var all []*Session
	commitRaw(t, db, func(b *Batch) {
		for i := range n {
			s := testSession(AccountID(i/2+1), i)
			b.setPB(sessionKey(s.Key()), toSession(s))
			all = append(all, s)
		}
		b.PutMeta(metaSchema, binary.BigEndian.AppendUint32(nil, 5))
	})
	return all
}

// checkSessionLists asserts that every session of all is listed by its
// account, and that no other list is stored.
func checkSessionLists(t *testing.T, db *DB, all []*Session) {
	t.Helper()
	want := map[AccountID][]*Session{}
	for _, s := range all {
		want[s.AccountID] = append(want[s.AccountID], indexedAs(s)) // created in order
	}
	for id, w := range want {
		if got, err := db.AccountSessions(id); err != nil || !reflect.DeepEqual(got, w) {
			t.Fatalf("AccountSessions(%d): %d sessions (%v), want %d", id, len(got), err, len(w))
		}
	}
	if keys := scanKeys(t, db, []byte(prefixAccountSession)); len(keys) != len(want) {
		t.Fatalf("%d lists, want %d", len(keys), len(want))
	}
}

// TestMigrateV5SessionLists opens a schema version 5 database (sessions
// without an index by account) and checks that the index is built at
// start, that a migration stopped after its first chunk (as by a crash)
// leaves version 5 recorded and is finished by the next open, and that
// an open of the current version builds nothing.
func TestMigrateV5SessionLists(t *testing.T) {
	eachReopenable(t, func(t *testing.T, open reopener) {
		db := open(t)
		all := writeV5Sessions(t, db, 2*migrateChunk+600) // two sessions per account: more lists than a chunk
		crash := errors.New("crash")
		db.afterChunk = func() error { return crash }
		if _, err := migrateInPlace(db, 5); !errors.Is(err, crash) {
			t.Fatalf("the interrupted migration: %v", err)
		}
		db.afterChunk = nil
		if v, err := db.Meta(metaSchema); err != nil || binary.BigEndian.Uint32(v) != 5 {
			t.Fatalf("schema after the interruption %x, %v; want 5", v, err)
		}
		if n := len(scanKeys(t, db, []byte(prefixAccountSession))); n == 0 || n >= len(all)/2 {
			t.Fatalf("%d lists written before the interruption: want some but not all", n)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		for round := range 2 {
			db := open(t)
			if v, err := db.Meta(metaSchema); err != nil || binary.BigEndian.Uint32(v) != SchemaVersion {
				t.Fatalf("schema %x, %v; want %d", v, err, SchemaVersion)
			}
			checkSessionLists(t, db, all)
			if round == 1 {
				if n, err := migrateAccountSessions(db); err != nil || n != len(all) {
					t.Errorf("the migration run again listed %d sessions (%v), want the same %d", n, err, len(all))
				}
				checkSessionLists(t, db, all)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
