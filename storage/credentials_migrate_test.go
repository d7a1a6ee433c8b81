package storage

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage/internal/pb"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// putV4Account writes account a as schema version 4 did: its credentials
// inside its profile record, no credentials record.
func putV4Account(b *Batch, a *Account) {
	sc := profileOf(a)
	sc.p.SrpSalt, sc.p.SrpSalt2, sc.p.SrpVerifier = a.SRP.Salt, a.SRP.Salt2, a.SRP.Verifier
	b.setPB(accountKey(a.ID), &sc.p)
	sc.release()
	b.setPB(listsKey(a.ID), toLists(a))
	b.putNickname(a.ID, "", a.Nickname)
	b.PutUpgrades(a.ID, 0, a.Upgrades)
	b.PutLogin(a.Login, a.ID)
}

// profileCredentialFields counts the credential fields of account id's
// profile record as stored.
func profileCredentialFields(t *testing.T, db *DB, id AccountID) int {
	t.Helper()
	raw, err := db.get(accountKey(id))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for b := raw[1:]; len(b) > 0; {
		num, typ, k := protowire.ConsumeTag(b)
		m := protowire.ConsumeFieldValue(num, typ, b[k:])
		if k < 0 || m < 0 {
			t.Fatalf("account %d: profile record does not parse", id)
		}
		if isCredentialField(num) {
			n++
		}
		b = b[k+m:]
	}
	return n
}

// v4Fixture is a database as schema version 4 left it: migrateAccounts
// accounts with credentials (account 1's derived from a password, so
// that a login can be checked), and one without (noCredsID).
type v4Fixture struct {
	accounts map[AccountID]*Account
	password string
}

const (
	migrateAccounts = 700 // two writes each: more than one chunk (migrateChunk)
	noCredsID       = migrateAccounts + 1
)

func writeV4(t *testing.T, db *DB) *v4Fixture {
	t.Helper()
	f := &v4Fixture{accounts: map[AccountID]*Account{}, password: "correct horse"}
	b := db.NewBatch()
	for i := 1; i <= noCredsID; i++ {
		id := AccountID(i)
		a := sampleAccount(id, fmt.Sprintf("login%04d", i))
		a.Gold = int64(i)
		switch id {
		case 1:
			salt, salt2, v, err := srp.DefaultGroup().NewVerifier(a.Login, f.password, rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			a.SRP = SRPVerifier{Salt: salt, Salt2: salt2, Verifier: v}
		case noCredsID:
			a.SRP = SRPVerifier{}
		default:
			a.SRP = SRPVerifier{Salt: binary.BigEndian.AppendUint32([]byte{1}, uint32(i)), Salt2: fmt.Sprintf("%022d", i),
				Verifier: binary.BigEndian.AppendUint32([]byte{2}, uint32(i))}
		}
		putV4Account(b, a)
		f.accounts[id] = a
	}
	b.PutMeta(metaSchema, binary.BigEndian.AppendUint32(nil, 4))
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if n := profileCredentialFields(t, db, 1); n != 3 {
		t.Fatalf("the fixture's profile holds %d credential fields, want 3", n)
	}
	return f
}

// login runs an SRP handshake of login and password against the stored
// credentials, as pre_auth and srpAuth do.
func login(t *testing.T, db *DB, id AccountID, loginName, password string) error {
	t.Helper()
	cred, err := db.Credentials(id)
	if err != nil {
		return err
	}
	g := srp.DefaultGroup()
	c, err := g.NewClient(loginName, password, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.NewServer(loginName, cred.Salt, cred.Verifier, c.AHex(), rand.Reader)
	if err != nil {
		return err
	}
	m1, err := c.Proof(s.SaltHex(), cred.Salt2, s.BHex())
	if err != nil {
		return err
	}
	m2, err := s.Verify(m1)
	if err != nil {
		return err
	}
	return c.VerifyServer(m2)
}

// check asserts that db holds f's accounts in the schema version 5
// layout: credentials in their own records, none left in a profile,
// every other field as it was, and the password of account 1 logs in.
func (f *v4Fixture) check(t *testing.T, db *DB) {
	t.Helper()
	if v, err := db.Meta(metaSchema); err != nil || binary.BigEndian.Uint32(v) != SchemaVersion {
		t.Fatalf("schema %x, %v; want %d", v, err, SchemaVersion)
	}
	for id, want := range f.accounts {
		got, err := db.Account(id)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("account %d:\n got %+v (%v)\nwant %+v", id, got, err, want)
		}
		if n := profileCredentialFields(t, db, id); n != 0 {
			t.Fatalf("account %d: %d credential fields left in its profile", id, n)
		}
		cred, err := db.Credentials(id)
		if err != nil || !cred.equal(want.SRP) {
			t.Fatalf("account %d: Credentials = %+v, %v; want %+v", id, cred, err, want.SRP)
		}
		if ok, err := db.has(credsKey(id)); err != nil || ok != (id != noCredsID) {
			t.Fatalf("account %d: credentials record present %v, %v", id, ok, err)
		}
	}
	if err := login(t, db, 1, f.accounts[1].Login, f.password); err != nil {
		t.Fatalf("login with the right password after the migration: %v", err)
	}
	if err := login(t, db, 1, f.accounts[1].Login, "wrong"); !errors.Is(err, srp.ErrBadProof) {
		t.Fatalf("login with a wrong password after the migration: %v; want a mismatch", err)
	}
}

// reopener opens the same database again, on either engine.
type reopener func(t *testing.T) *DB

// eachReopenable runs fn on a Pebble data directory and a PostgreSQL
// database (skipped without a server), with a way to open it again.
func eachReopenable(t *testing.T, fn func(t *testing.T, open reopener)) {
	t.Run("pebble", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "db")
		fn(t, func(t *testing.T) *DB {
			db, err := Open(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			return db
		})
	})
	t.Run("postgres", func(t *testing.T) {
		url := storagetest.PostgresURL(t)
		fn(t, func(t *testing.T) *DB {
			db, err := OpenPostgres(PostgresOptions{URL: url, MaxConns: 4})
			if err != nil {
				t.Fatal(err)
			}
			return db
		})
	})
}

// TestMigrateV4Credentials opens a schema version 4 database (credentials
// in the profile records) and checks that they are moved into records of
// their own at start, every account and login intact, and that opening
// it again finds the current version.
func TestMigrateV4Credentials(t *testing.T) {
	eachReopenable(t, func(t *testing.T, open reopener) {
		db := open(t)
		f := writeV4(t, db)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		for round := range 2 { // the second open migrates nothing
			db := open(t)
			f.check(t, db)
			if round == 1 {
				if n, err := migrateCredentials(db); err != nil || n != 0 {
					t.Errorf("a migration run again moved %d accounts (%v), want 0", n, err)
				}
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestMigrateV4CredentialsResumes: a migration stopped after its first
// chunk (as by a crash: each chunk commits on its own, the version is
// recorded last) leaves version 4 recorded with some accounts moved, and
// the next start moves the rest.
func TestMigrateV4CredentialsResumes(t *testing.T) {
	eachReopenable(t, func(t *testing.T, open reopener) {
		db := open(t)
		f := writeV4(t, db)
		crash := errors.New("crash")
		db.afterChunk = func() error { return crash }
		if _, err := migrateInPlace(db, 4); !errors.Is(err, crash) {
			t.Fatalf("the interrupted migration: %v", err)
		}
		db.afterChunk = nil
		if v, err := db.Meta(metaSchema); err != nil || binary.BigEndian.Uint32(v) != 4 {
			t.Fatalf("schema after the interruption %x, %v; want 4", v, err)
		}
		moved := 0
		for id := range f.accounts {
			if profileCredentialFields(t, db, id) == 0 {
				moved++
			}
		}
		if moved == 0 || moved >= migrateAccounts {
			t.Fatalf("%d accounts moved before the interruption: want some but not all", moved)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		db = open(t)
		defer db.Close()
		f.check(t, db)
	})
}

// TestCredentialsRecordAlone: the profile record of a new account holds
// no credentials; they are in their own record, read back whole.
func TestCredentialsRecordAlone(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		a := sampleAccount(3, "alone")
		commitRaw(t, db, func(b *Batch) { b.PutAccount(a, nil) })
		if n := profileCredentialFields(t, db, 3); n != 0 {
			t.Fatalf("a new profile record holds %d credential fields", n)
		}
		raw, err := db.get(credsKey(3))
		if err != nil {
			t.Fatal(err)
		}
		var c pb.Credentials
		if err := decodePB(raw, &c); err != nil || string(c.SrpSalt) != string(a.SRP.Salt) || c.SrpSalt2 != a.SRP.Salt2 ||
			string(c.SrpVerifier) != string(a.SRP.Verifier) {
			t.Fatalf("credentials record = %v, %v; want %+v", &c, err, a.SRP)
		}
	})
}
