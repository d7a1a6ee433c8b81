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

// indexed is s as AccountSessions returns it.
func indexedAs(s *Session) *Session {
	return &Session{Hash: s.Key(), AccountID: s.AccountID, Created: s.Created, Expires: s.Expires}
}

// TestAccountSessions: an account's sessions are listed oldest first from
// its own index entries, whatever order they were written in and whatever
// other accounts hold; deleting a session deletes its entry; deleting the
// account's records (AccountRecords) leaves no entry.
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
			b.PutSession(other)
		})
		want := []*Session{indexedAs(mine[1]), indexedAs(mine[2]), indexedAs(mine[0])}
		if got, err := db.AccountSessions(7); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("AccountSessions(7) = %v, %v;\nwant %v", got, err, want)
		}
		if got, err := db.AccountSessions(9); err != nil || len(got) != 0 {
			t.Fatalf("AccountSessions of an account without sessions = %v, %v", got, err)
		}

		// A session as the session cache or the index gives it back (no
		// cookie) deletes as well as the one written.
		commitRaw(t, db, func(b *Batch) { b.DeleteSession(want[0]) })
		if _, err := db.SessionByKey(mine[1].Key()); !errors.Is(err, ErrNotFound) {
			t.Fatalf("deleted session: %v", err)
		}
		if got, err := db.AccountSessions(7); err != nil || !reflect.DeepEqual(got, want[1:]) {
			t.Fatalf("after a deletion AccountSessions(7) = %v, %v; want %v", got, err, want[1:])
		}

		r, err := db.AccountRecords(7)
		if err != nil {
			t.Fatal(err)
		}
		if r.Counts["sessions"] != 2 || len(r.Sessions) != 2 {
			t.Fatalf("AccountRecords: %d sessions counted, %d listed; want 2", r.Counts["sessions"], len(r.Sessions))
		}
		commitRaw(t, db, func(b *Batch) {
			for _, k := range r.keys {
				b.del(k)
			}
		})
		if keys := scanKeys(t, db, accountSessionPrefix(7)); len(keys) != 0 {
			t.Fatalf("index entries left after the account's records went: %q", keys)
		}
		if got, err := db.AccountSessions(8); err != nil || !reflect.DeepEqual(got, []*Session{indexedAs(other)}) {
			t.Fatalf("another account's sessions: %v, %v", got, err)
		}
	})
}

// writeV5Sessions stores n sessions of accounts 1..10 as schema version 5
// did (s/ records, no index) and records version 5.
func writeV5Sessions(t *testing.T, db *DB, n int) []*Session {
	t.Helper()
	var all []*Session
	commitRaw(t, db, func(b *Batch) {
		for i := range n {
			s := testSession(AccountID(i%10+1), i)
			b.setPB(sessionKey(s.Key()), toSession(s))
			all = append(all, s)
		}
		b.PutMeta(metaSchema, binary.BigEndian.AppendUint32(nil, 5))
	})
	return all
}

// checkSessionIndex asserts that every session of all is listed by its
// account, and nothing else.
func checkSessionIndex(t *testing.T, db *DB, all []*Session) {
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
	if keys := scanKeys(t, db, []byte(prefixAccountSession)); len(keys) != len(all) {
		t.Fatalf("%d index entries, want %d", len(keys), len(all))
	}
}

// TestMigrateV5SessionIndex opens a schema version 5 database (sessions
// without an index by account) and checks that the index is built at
// start, that a migration stopped after its first chunk (as by a crash)
// leaves version 5 recorded and is finished by the next open, and that
// an open of the current version builds nothing.
func TestMigrateV5SessionIndex(t *testing.T) {
	eachReopenable(t, func(t *testing.T, open reopener) {
		db := open(t)
		all := writeV5Sessions(t, db, migrateChunk+300)
		crash := errors.New("crash")
		db.afterChunk = func() error { return crash }
		if _, err := migrateInPlace(db, 5); !errors.Is(err, crash) {
			t.Fatalf("the interrupted migration: %v", err)
		}
		db.afterChunk = nil
		if v, err := db.Meta(metaSchema); err != nil || binary.BigEndian.Uint32(v) != 5 {
			t.Fatalf("schema after the interruption %x, %v; want 5", v, err)
		}
		if n := len(scanKeys(t, db, []byte(prefixAccountSession))); n == 0 || n >= len(all) {
			t.Fatalf("%d entries written before the interruption: want some but not all", n)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		for round := range 2 {
			db := open(t)
			if v, err := db.Meta(metaSchema); err != nil || binary.BigEndian.Uint32(v) != SchemaVersion {
				t.Fatalf("schema %x, %v; want %d", v, err, SchemaVersion)
			}
			checkSessionIndex(t, db, all)
			if round == 1 {
				if n, err := migrateAccountSessions(db); err != nil || n != len(all) {
					t.Errorf("the migration run again wrote %d entries (%v), want the same %d", n, err, len(all))
				}
				checkSessionIndex(t, db, all)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
