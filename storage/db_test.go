package storage

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

func openMem(t *testing.T) *DB {
	t.Helper()
	db, err := Open("", &Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func sampleAccount(id AccountID, login string) *Account {
	return &Account{
		ID: id, SuperID: id, Login: login, Nickname: login, Email: login + "@example.invalid",
		Created:  time.Unix(1700000000, 0).UTC(),
		SRP:      SRPVerifier{Salt: []byte{1, 2, 3}, Salt2: "abcdefghijklmnopqrstuv", Verifier: []byte{9, 8, 7}},
		Upgrades: []Upgrade{{ID: "aa.Hero_Pyromancer.Alt2"}}, Gold: 100, Tickets: 50,
		Stats: Stats{Level: 3, AccPubSkill: 1500.25},
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		main, sub := sampleAccount(1, "SouL"), sampleAccount(2, "soul2")
		sub.SuperID = 1
		sess := &Session{Cookie: "0123456789abcdef0123456789abcdef", AccountID: 2, SuperID: 1, IP: "127.0.0.1",
			Created: time.Unix(1700000000, 0).UTC(), Expires: time.Unix(1700086400, 0).UTC()}

		b := db.NewBatch()
		b.PutAccount(main, nil)
		b.PutUpgrades(main.ID, 0, main.Upgrades)
		b.PutAccount(sub, nil)
		b.PutUpgrades(sub.ID, 0, sub.Upgrades)
		b.PutLogin(main.Login, main.ID)
		b.PutLogin(sub.Login, sub.ID)
		b.PutSubAccount(1, 2)
		b.SetNextAccountID(3)
		b.PutSession(sess)
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}

		got, err := db.Account(1)
		if err != nil || !reflect.DeepEqual(got, main) {
			t.Fatalf("Account(1) = %+v, %v; want %+v", got, err, main)
		}
		for login, want := range map[string]AccountID{"SouL": 1, "soul2": 2} {
			if id, err := db.LoginID(login); err != nil || id != want {
				t.Errorf("LoginID(%q) = %d, %v; want %d", login, id, err, want)
			}
		}
		if _, err := db.LoginID("soul"); !errors.Is(err, ErrNotFound) {
			t.Errorf("logins are case-sensitive: LoginID(soul) err = %v, want ErrNotFound", err)
		}
		if subs, err := db.SubAccounts(1); err != nil || !reflect.DeepEqual(subs, []AccountID{2}) {
			t.Errorf("SubAccounts(1) = %v, %v", subs, err)
		}
		if subs, _ := db.SubAccounts(2); len(subs) != 0 {
			t.Errorf("SubAccounts(2) = %v, want none", subs)
		}
		if next, _ := db.NextAccountID(); next != 3 {
			t.Errorf("NextAccountID = %d, want 3", next)
		}
		sess.Hash = SessionHash(sess.Cookie)
		if s, err := db.Session(sess.Cookie); err != nil || !reflect.DeepEqual(s, sess) {
			t.Errorf("Session = %+v, %v", s, err)
		}

		var seen []AccountID
		if err := db.EachAccount(func(a *Account) error { seen = append(seen, a.ID); return nil }); err != nil || !reflect.DeepEqual(seen, []AccountID{1, 2}) {
			t.Errorf("EachAccount saw %v, %v", seen, err)
		}

		b = db.NewBatch()
		b.DeleteSession(sess)
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Session(sess.Cookie); !errors.Is(err, ErrNotFound) {
			t.Errorf("deleted session still there: %v", err)
		}
	})
}

func TestEmptyDatabase(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		if next, err := db.NextAccountID(); err != nil || next != FirstAccountID {
			t.Errorf("NextAccountID = %d, %v", next, err)
		}
		if _, err := db.Account(7); !errors.Is(err, ErrNotFound) {
			t.Errorf("Account(7) err = %v", err)
		}
		if _, err := db.Meta("nothing"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Meta err = %v", err)
		}
	})
}

func TestCorruptValue(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		b := db.NewBatch()
		b.set(accountKey(5), []byte{formatV2, 0xff, 0xff}, nil)
		b.set(sessionKey(SessionHash("x")), []byte{formatV2, '['}, nil)
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Account(5); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Account err = %v, want ErrCorrupt", err)
		}
		if _, err := db.Session("x"); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Session err = %v, want ErrCorrupt", err)
		}
	})
}

// A record that cannot be encoded (protobuf refuses invalid UTF-8 in a
// string) fails the whole batch at Commit: nothing of it is written, not
// even the records encoded before it, nor the half-written record itself.
func TestUnencodableRecordFailsBatch(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		b := db.NewBatch()
		b.PutLogin("good", 5)
		b.PutAccount(&Account{ID: 5, Login: "bad\xff"}, nil)
		b.PutLogin("after", 6)
		if err := db.Commit(b); err == nil || !strings.Contains(err.Error(), "encode") {
			t.Fatalf("Commit err = %v, want an encode error", err)
		}
		if _, err := db.Account(5); !errors.Is(err, ErrNotFound) {
			t.Errorf("Account(5) err = %v, want ErrNotFound", err)
		}
		if _, err := db.LoginID("good"); !errors.Is(err, ErrNotFound) {
			t.Errorf("login written before the bad record: err = %v", err)
		}
		// A good record after a failed encode in another batch round-trips.
		ok := db.NewBatch()
		ok.PutAccount(&Account{ID: 5, Login: "good", Nickname: "Nick", Gold: 7}, nil)
		if err := db.Commit(ok); err != nil {
			t.Fatal(err)
		}
		if a, err := db.Account(5); err != nil || a.Login != "good" || a.Nickname != "Nick" || a.Gold != 7 {
			t.Errorf("Account(5) = %+v, %v", a, err)
		}
	})
}

func TestPrefixEnd(t *testing.T) {
	for _, tc := range []struct{ in, want []byte }{
		{[]byte("a/"), []byte("a0")},
		{[]byte{'c', '/', 0, 0, 0, 0xff}, []byte{'c', '/', 0, 0, 1}},
		{[]byte{0xff, 0xff}, nil},
	} {
		if got := prefixEnd(tc.in); !bytes.Equal(got, tc.want) {
			t.Errorf("prefixEnd(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestReopenAndCheckpoint checks that a committed batch is on disk after a
// reopen, and that a checkpoint taken while the database is open is a
// complete, openable copy.
func TestReopenAndCheckpoint(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(filepath.Join(dir, "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	b.PutAccount(sampleAccount(1, "a"), nil)
	b.PutLogin("a", 1)
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if err := db.Checkpoint(filepath.Join(dir, "backup")); err != nil {
		t.Fatal(err)
	}
	b = db.NewBatch()
	b.PutAccount(sampleAccount(2, "b"), nil)
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if err := db.Checkpoint(filepath.Join(dir, "backup")); err == nil {
		t.Error("checkpoint over an existing directory succeeded")
	}
	db.Close()

	for _, tc := range []struct {
		dir      string
		accounts int
	}{{"db", 2}, {"backup", 1}} {
		db, err := Open(filepath.Join(dir, tc.dir), nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		db.EachAccount(func(*Account) error { n++; return nil })
		if n != tc.accounts {
			t.Errorf("%s holds %d accounts, want %d", tc.dir, n, tc.accounts)
		}
		if id, err := db.LoginID("a"); err != nil || id != 1 {
			t.Errorf("%s: LoginID(a) = %d, %v", tc.dir, id, err)
		}
		db.Close()
	}
}

// TestWALMinSyncInterval: commits made together with a least interval
// between WAL syncs all return, and every one that returned survives a
// crash. The file system keeps only what was synced (a crash clone of
// vfs.NewCrashableMem, taken without closing the database: a clean Close
// would sync anyway). Record commits and commits of counts alone (which
// wait for their sync outside the counts' mutex) both count. A write
// applied without a sync is checked to be lost, so the crash drops what
// was never synced.
func TestWALMinSyncInterval(t *testing.T) {
	fs := vfs.NewCrashableMem()
	db, err := Open("db", &Options{WALMinSyncInterval: 2 * time.Millisecond, fs: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 16
	set := testSets.At("wal")
	errs := make(chan error, 2*n)
	for i := range n {
		go func() {
			b := db.NewBatch()
			b.PutAccount(sampleAccount(AccountID(i+1), fmt.Sprintf("a%d", i)), nil)
			errs <- db.Commit(b)
		}()
		go func() {
			b := db.NewBatch()
			AddMember(writerOf{b.ForAccount(AccountID(i + 1))}, testMembers.At(fmt.Sprint(i)), 1, set)
			errs <- db.Commit(b)
		}()
	}
	for range 2 * n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	unsynced := db.eng.(*pebbleEngine).db.NewBatch()
	if err := unsynced.Set(metaKey("unsynced"), []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	if err := unsynced.Commit(pebble.NoSync); err != nil {
		t.Fatal(err)
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{}) // exactly what was synced

	after, err := Open("db", &Options{fs: crashed})
	if err != nil {
		t.Fatal(err)
	}
	defer after.Close()
	for i := range n {
		if _, err := after.AccountProfile(AccountID(i + 1)); err != nil {
			t.Errorf("account %d after the crash: %v", i+1, err)
		}
		if got := countOf(t, after, testMembers, fmt.Sprint(i)); got != 1 {
			t.Errorf("count %d after the crash = %d; want 1", i, got)
		}
	}
	if got := countOf(t, after, testSets, "wal"); got != n {
		t.Errorf("set after the crash = %d; want %d", got, n)
	}
	if _, err := after.Meta("unsynced"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a write never synced, after the crash: %v; want ErrNotFound (the crash kept unsynced data)", err)
	}
}
