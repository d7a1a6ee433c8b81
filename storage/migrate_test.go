package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// copyDir copies the fixture so the test never changes it.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o700); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// rawText reads the catalog's bytes as they are (host/plinko decodes them).
type rawText struct{}

func (rawText) Encode(s string) ([]byte, error) { return []byte(s), nil }
func (rawText) Decode(b []byte) (string, error) { return string(b), nil }

var movedCatalog = NewGlobalKeyspace[string]("plinko.catalog", rawText{})

// keptCloud reads host/cloud's archives, which keep their schema version 1
// keys and values (host/cloud declares them with NewAccountKeyspaceAt).
var keptCloud = NewAccountKeyspaceAt[string]("cloud.archive", "c/", rawText{})

// TestMigrateV1Fixture opens a data directory written by schema version 1
// (testdata/v1, made by testdata/genfixture.go with that version's code)
// and checks that every value survived the migration, that it runs once,
// and that no raw session cookie is left on disk.
func TestMigrateV1Fixture(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	copyDir(t, "testdata/v1", dir)
	db, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1700000000, 0).UTC()
	want1 := &Account{ID: 1, SuperID: 1, Login: "SouL", Nickname: "TheSoul", Email: "soul@example.invalid",
		AccountType: 1, Standing: 3, IsNew: true, Created: t0,
		SRP:   SRPVerifier{Salt: []byte{7, 1, 2, 3}, Salt2: "abcdefghijklmnopqrstuv", Verifier: []byte{9, 8, 7, 6}},
		Stats: Stats{Level: 12, LevelExp: 4200, GamesPlayed: 57, AccPubSkill: 1612.5, AccWins: 31, RnkRating: 1500, BotGamesValid: true, BotGamesWon: 4},
		Upgrades: []Upgrade{{ID: "aa.Hero_Pyromancer.Alt2"}, {ID: "av.Flamboyant", Data: "x", Used: 2, Score: "9"},
			{ID: "m.DemoMode", StartTime: 1700000000, EndTime: 1702592000}},
		SelectedUpgrades: []string{"av.Flamboyant"},
		Buddies:          []Buddy{{ID: 3, Nickname: "Friend", Group: "g", ClanTag: "CT", Status: 2, Standing: 3, New: true}},
		Ignored:          []Ignored{{ID: 9, Nickname: "Troll"}},
		Banned:           []Banned{{ID: 10, Nickname: "Cheat", Reason: "hacks"}},
		Notifications:    []Notification{{ID: 1, Sender: "Friend", Code: 2, Type: "notify_buddy_added", Template: "t", Date: t0}},
		Chatrooms:        []string{"HoN"}, FreeHeroes: "Hero_A,Hero_B",
		Gold: 500, Silver: 40, Tickets: 1234, GameTokens: 3, Points: 4, MMPoints: 5, DiceTokens: 6,
		SeasonLevel: 7, CreepLevel: 8, MuteExpiration: 1700001000, Cloud: CloudFlags{UseCloud: true, AutoUpload: true},
	}
	want2 := &Account{ID: 2, SuperID: 1, Login: "soul2", Nickname: "soul2", Email: "s2@example.invalid",
		Created: t0.Add(time.Minute), SRP: SRPVerifier{Salt: []byte{1}, Salt2: "bbbbbbbbbbbbbbbbbbbbbb", Verifier: []byte{2}},
		Tickets: 10}
	check := func(t *testing.T, db *DB) {
		for _, want := range []*Account{want1, want2} {
			got, err := db.Account(want.ID)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("account %d:\n got %+v (%v)\nwant %+v", want.ID, got, err, want)
			}
			if id, err := db.LoginID(want.Login); err != nil || id != want.ID {
				t.Errorf("login %s = %d, %v", want.Login, id, err)
			}
		}
		a3, err := db.Account(3)
		if err != nil || a3.Gold != 1 || len(a3.Upgrades) != 600 {
			t.Fatalf("account 3: %v, %v", a3, err)
		}
		for i, u := range a3.Upgrades {
			if u.ID != fmt.Sprintf("ai.Icon_%04d", i) {
				t.Fatalf("account 3 upgrade %d = %s: order lost", i, u.ID)
			}
		}
		for nick, want := range map[string][]AccountID{"thesoul": {1}, "soul2": {2}, "Friend": {3}, "SouL": nil} {
			if ids, err := db.NicknameAccounts(nick); err != nil || !reflect.DeepEqual(ids, want) {
				t.Errorf("NicknameAccounts(%q) = %v, %v; want %v", nick, ids, err, want)
			}
		}
		if subs, err := db.SubAccounts(1); err != nil || !reflect.DeepEqual(subs, []AccountID{2}) {
			t.Errorf("SubAccounts(1) = %v, %v", subs, err)
		}
		if next, err := db.NextAccountID(); err != nil || next != 4 {
			t.Errorf("NextAccountID = %d, %v", next, err)
		}
		s, err := db.Session("0123456789abcdef0123456789abcdef")
		if err != nil || s.AccountID != 1 || s.SuperID != 1 || s.IP != "10.0.0.1" || !s.Created.Equal(t0) ||
			!s.Expires.Equal(t0.Add(100*365*24*time.Hour)) {
			t.Errorf("session 1 = %+v, %v", s, err)
		}
		if s, err := db.Session("fedcba9876543210fedcba9876543210"); err != nil || s.AccountID != 2 {
			t.Errorf("session 2 = %+v, %v", s, err)
		}
		n := 0
		if err := db.EachSession(func(*Session) error { n++; return nil }); err != nil || n != 2 {
			t.Errorf("EachSession saw %d, %v", n, err)
		}
		for id, cookie := range map[AccountID]string{1: "0123456789abcdef0123456789abcdef", 2: "fedcba9876543210fedcba9876543210"} {
			if list, err := db.AccountSessions(id); err != nil || len(list) != 1 || list[0].Hash != SessionHash(cookie) {
				t.Errorf("account %d's list of sessions after the copy: %v, %v; want its one session", id, list, err)
			}
		}
		o, err := keptCloud.Get(db, 1, "hon-game-configs")
		if err != nil || len(o) < 2 || o[0] != formatV1 || !strings.HasSuffix(o, "PK\x03\x04 zip bytes \x00\xff") ||
			!strings.Contains(o, `"ModifyTime":"2024-01-02 03:04:05"`) {
			t.Errorf("cloud = %q, %v", o, err)
		}
		if v, err := db.Meta("auth_hash_secret"); err != nil || string(v) != "0123456789abcdef0123456789abcdef" {
			t.Errorf("secret = %q, %v", v, err)
		}
		c, err := movedCatalog.Get(db, "")
		if err != nil || len(c) < 2 || c[0] != formatV1 || !bytes.Contains([]byte(c), []byte(`"aa.Hero_Pyromancer.Alt2"`)) {
			t.Errorf("catalog = %q, %v", c, err)
		}
		if _, err := db.Meta("plinko_catalog"); !errors.Is(err, ErrNotFound) {
			t.Errorf("old catalog key left: %v", err)
		}
		v, err := db.Meta(metaSchema)
		if err != nil || binary.BigEndian.Uint32(v) != SchemaVersion {
			t.Errorf("schema version %x, %v", v, err)
		}
	}
	check(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// The raw cookies are gone from every file (the migration compacts
	// the old records away).
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte("0123456789abcdef0123456789abcdef")) || bytes.Contains(b, []byte("fedcba9876543210fedcba9876543210")) {
			t.Errorf("%s still holds a raw session cookie", d.Name())
		}
		return nil
	})
	// Reopening finds version 2 and migrates nothing.
	db, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, leftover := range []string{dir + migratingSuffix, dir + oldSuffix} {
		if _, err := os.Stat(leftover); !os.IsNotExist(err) {
			t.Errorf("%s left behind (%v)", leftover, err)
		}
	}
	check(t, db)
}

// TestNewerSchemaRefused: a directory written by a newer version is not
// opened (its records could be misread).
func TestNewerSchemaRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	db, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	b.PutMeta(metaSchema, binary.BigEndian.AppendUint32(nil, SchemaVersion+1))
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(dir, nil); !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("err = %v, want ErrNewerSchema", err)
	}
}

// TestFileModes: the data directory is 0700 and every file in it, and in a
// checkpoint, 0600, whatever the umask.
func TestFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	db, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	putOnlySession(b, &Session{Cookie: "c", AccountID: 1, Expires: time.Now().Add(time.Hour)})
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if err := db.Checkpoint(filepath.Join(filepath.Dir(dir), "backup")); err != nil {
		t.Fatal(err)
	}
	db.Close()
	files := 0
	for _, d := range []string{dir, filepath.Join(filepath.Dir(dir), "backup")} {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := e.Info()
			if err != nil {
				return err
			}
			want := FileMode
			if e.IsDir() {
				want = DirMode
			} else {
				files++
			}
			if got := info.Mode().Perm(); got != want {
				t.Errorf("%s: mode %v, want %v", p, got, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 6 {
		t.Fatalf("only %d files checked", files)
	}
}

// TestMigrationResumes: a migration interrupted by a crash is redone (a
// partial new directory is discarded) or finished (the new directory is
// complete but not yet in place).
func TestMigrationResumes(t *testing.T) {
	t.Run("partial new directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "db")
		copyDir(t, "testdata/v1", dir)
		if err := os.MkdirAll(dir+migratingSuffix, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir+migratingSuffix, "junk"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if a, err := db.Account(3); err != nil || len(a.Upgrades) != 600 {
			t.Fatalf("account 3 after redo: %v", err)
		}
	})
	t.Run("crash between the renames", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "db")
		copyDir(t, "testdata/v1", dir)
		db, err := Open(dir, nil) // migrates
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		// Put the directories back as a crash after the first rename leaves them.
		if err := os.Rename(dir, dir+migratingSuffix); err != nil {
			t.Fatal(err)
		}
		copyDir(t, "testdata/v1", dir+oldSuffix)
		db, err = Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := os.Stat(dir + oldSuffix); !os.IsNotExist(err) {
			t.Errorf("old directory left: %v", err)
		}
		if s, err := db.Session("0123456789abcdef0123456789abcdef"); err != nil || s.AccountID != 1 {
			t.Fatalf("session after resume: %+v, %v", s, err)
		}
	})
}

// TestMigrateV2Nicknames opens a schema version 2 database (accounts
// without nickname index entries) and checks that the index is built once,
// in place, with everything else untouched.
func TestMigrateV2Nicknames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	db, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	nicks := map[AccountID]string{1: "Alice", 2: "Bob", 3: "bob", 4: ""}
	b := db.NewBatch()
	for id, nick := range nicks {
		a := sampleAccount(id, fmt.Sprintf("login%d", id))
		a.Nickname = nick
		b.PutAccount(a, nil)
		b.PutLogin(a.Login, id)
	}
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	// Make it what version 2 wrote: no index entries, schema 2.
	b = db.NewBatch()
	for id, nick := range nicks {
		nicknameIndex.Delete(indexWriter{b.ForAccount(id)}, nicknameKey(nick))
	}
	b.PutMeta(metaSchema, binary.BigEndian.AppendUint32(nil, 2))
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if ids, _ := db.NicknameAccounts("bob"); ids != nil {
		t.Fatalf("index entries left before the migration: %v", ids)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	for round := 0; round < 2; round++ { // the second open finds the current version
		db, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		for nick, want := range map[string][]AccountID{"alice": {1}, "BOB": {2, 3}, "": nil, "login1": nil} {
			if ids, err := db.NicknameAccounts(nick); err != nil || !reflect.DeepEqual(ids, want) {
				t.Errorf("round %d: NicknameAccounts(%q) = %v, %v; want %v", round, nick, ids, err, want)
			}
		}
		if a, err := db.Account(2); err != nil || a.Nickname != "Bob" || a.Gold != 100 {
			t.Errorf("round %d: account 2 = %+v, %v", round, a, err)
		}
		if v, err := db.Meta(metaSchema); err != nil || binary.BigEndian.Uint32(v) != SchemaVersion {
			t.Errorf("round %d: schema %x, %v", round, v, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMigrateV3Owners opens a schema version 3 database (index and
// look-alike entries without owners entries) and checks that the owners
// index is built in place, so that deleting an account still removes its
// index and skeleton entries and nothing of another account's.
func TestMigrateV3Owners(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	db, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	keep := sampleAccount(1, "keep")
	writeAccount(t, db, keep, 2, "00000000000000000000000000000001")
	before := allKeys(t, db)
	gone := sampleAccount(2, "gone")
	writeAccount(t, db, gone, 1, "00000000000000000000000000000002")
	// Make it what version 3 wrote: no owners entries, schema 3.
	b := db.NewBatch()
	owners := 0
	for _, k := range allKeys(t, db) {
		if strings.HasPrefix(k, prefixOwners) {
			b.del([]byte(k))
			owners++
		}
	}
	b.PutMeta(metaSchema, binary.BigEndian.AppendUint32(nil, 3))
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if owners == 0 {
		t.Fatal("the accounts wrote no owners entries")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.Meta(metaSchema); err != nil || binary.BigEndian.Uint32(v) != SchemaVersion {
		t.Fatalf("schema %x, %v", v, err)
	}
	r, err := db.AccountRecords(2)
	if err != nil {
		t.Fatal(err)
	}
	if r.Counts["login_skeleton"] != 1 || r.Counts["i/test.delindex"] != 2 {
		t.Fatalf("after the migration, records of 2: %v", r.Counts)
	}
	b = db.NewBatch()
	b.DeleteAccountRecords(r)
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	// Nothing of account 2 is left, and the kept account's owners entries,
	// written again by the migration, are the keys it had before.
	if after := allKeys(t, db); !slices.Equal(before, after) {
		t.Errorf("keys after deletion differ from before the account:\nbefore %q\nafter  %q", before, after)
	}
}

// TestDirSchema reads a directory's schema version without changing it:
// an empty database stays without a version, and a version 1 directory is
// not migrated.
func TestDirSchema(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "db")
	db, err := openPebble(empty, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for range 2 {
		if v, err := DirSchema(empty); v != 0 || err != nil {
			t.Fatalf("empty: %d, %v; want 0", v, err)
		}
	}
	v1 := filepath.Join(t.TempDir(), "db")
	copyDir(t, "testdata/v1", v1)
	for range 2 {
		if v, err := DirSchema(v1); v != 1 || err != nil {
			t.Fatalf("version 1 fixture: %d, %v; want 1", v, err)
		}
	}
	if _, err := DirSchema(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing directory: %v", err)
	}
	if err := CheckSchema(SchemaVersion+1, SchemaVersion); !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("CheckSchema of a newer version: %v", err)
	}
}
