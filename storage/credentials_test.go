package storage

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/honmaster/masterserver/storage/internal/pb"
)

// TestDroppedCredentialsStayStored: a state without its credentials
// (DropCredentials) writes a profile that leaves the stored ones alone,
// and a change that sets new ones stores them.
func TestDroppedCredentialsStayStored(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		orig := sampleAccount(1, "creds")
		b := db.NewBatch()
		b.PutAccount(orig, nil)
		b.PutLogin(orig.Login, orig.ID)
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		check := func(what string, want SRPVerifier, tickets int64) {
			t.Helper()
			got, err := db.Credentials(1)
			if err != nil || !bytes.Equal(got.Salt, want.Salt) || got.Salt2 != want.Salt2 || !bytes.Equal(got.Verifier, want.Verifier) {
				t.Fatalf("%s: Credentials = %+v, %v; want %+v", what, got, err, want)
			}
			a, err := db.AccountProfile(1)
			if err != nil || !bytes.Equal(a.SRP.Verifier, want.Verifier) || a.Tickets != tickets {
				t.Fatalf("%s: profile = %+v, %v", what, a, err)
			}
		}
		check("created", orig.SRP, 50)

		live, err := db.LoadAccount(1)
		if err != nil {
			t.Fatal(err)
		}
		live.DropCredentials()
		if !live.SRP.empty() {
			t.Fatalf("SRP after DropCredentials: %+v", live.SRP)
		}
		next := live.Clone()
		next.Tickets = 77
		b = db.NewBatch()
		b.PutAccount(next, live)
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		check("tickets changed without credentials in memory", orig.SRP, 77)

		reset := next.Clone()
		reset.SRP = SRPVerifier{Salt: []byte{4, 4}, Salt2: "zzzzzzzzzzzzzzzzzzzzzz", Verifier: []byte{5, 5, 5}}
		b = db.NewBatch()
		b.PutAccount(reset, next)
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		check("new credentials set", reset.SRP, 77)

		if _, err := db.Credentials(2); !errors.Is(err, ErrNotFound) {
			t.Errorf("Credentials of no account: %v, want ErrNotFound", err)
		}
	})
}

// BenchmarkCredentials is the read pre_auth makes for a login's salt and
// verifier (a live account's state no longer holds them), beside the full
// profile read it made before for an account not live.
//
//	go test -run '^$' -bench Credentials -benchmem ./storage
func BenchmarkCredentials(b *testing.B) {
	db := benchAccount(b)
	b.Run("Credentials", func(b *testing.B) {
		for b.Loop() {
			if v, err := db.Credentials(1); err != nil || len(v.Verifier) != 256 {
				b.Fatal(v, err)
			}
		}
	})
	b.Run("AccountProfile", func(b *testing.B) {
		for b.Loop() {
			if p, err := db.AccountProfile(1); err != nil || len(p.SRP.Verifier) != 256 {
				b.Fatal(p, err)
			}
		}
	})
}

// TestCredentialFieldsMatch: pb.Credentials numbers its fields as
// pb.Profile did, which the migration relies on (it moves the encoded
// fields as they are).
func TestCredentialFieldsMatch(t *testing.T) {
	p := (&pb.Profile{}).ProtoReflect().Descriptor().Fields()
	c := (&pb.Credentials{}).ProtoReflect().Descriptor().Fields()
	if c.Len() != 3 {
		t.Fatalf("pb.Credentials has %d fields, want 3", c.Len())
	}
	for i := range c.Len() {
		f := c.Get(i)
		pf := p.ByName(f.Name())
		if pf == nil || pf.Number() != f.Number() || pf.Kind() != f.Kind() {
			t.Errorf("credentials field %s = %d (%v); the profile's: %v", f.Name(), f.Number(), f.Kind(), pf)
		}
	}
}

// countingEngine counts the reads of the engine under it.
type countingEngine struct {
	engine
	reads []string
}

func (e *countingEngine) view(key []byte, fn func([]byte) error) error {
	e.reads = append(e.reads, fmt.Sprintf("view %q", key))
	return e.engine.view(key, fn)
}

func (e *countingEngine) scan(lo, hi []byte, fn func(k, v []byte) error) error {
	e.reads = append(e.reads, fmt.Sprintf("scan %q", lo))
	return e.engine.scan(lo, hi, fn)
}

// TestProfileWriteReadsNothing: a profile write of a state that went
// without its credentials (a drop of a live account on Pebble) reads
// nothing from storage and writes only the profile record; the stored
// credentials stay. (Up to schema version 4 it read the profile record to
// copy the credentials into the new one.)
func TestProfileWriteReadsNothing(t *testing.T) {
	db := openMem(t)
	orig := sampleAccount(1, "drop")
	commitRaw(t, db, func(b *Batch) { b.PutAccount(orig, nil) })
	live, err := db.LoadAccount(1)
	if err != nil {
		t.Fatal(err)
	}
	live.DropCredentials()
	ce := &countingEngine{engine: db.eng}
	db.eng = ce
	next := live.Clone()
	next.Tickets--
	next.Gold += 10
	b := db.NewBatch()
	b.PutAccount(next, live)
	if n := b.eb.count(); n != 1 {
		t.Errorf("the drop's batch holds %d writes, want 1 (the profile)", n)
	}
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if len(ce.reads) != 0 {
		t.Errorf("the profile write read storage: %v", ce.reads)
	}
	db.eng = ce.engine
	got, err := db.Credentials(1)
	if err != nil || !got.equal(orig.SRP) {
		t.Fatalf("credentials after the drop: %+v, %v; want %+v", got, err, orig.SRP)
	}
	if a, err := db.Account(1); err != nil || a.Gold != orig.Gold+10 || !a.SRP.equal(orig.SRP) {
		t.Fatalf("account after the drop: %+v, %v", a, err)
	}
}

// TestFencedCredentialsRefused: in cluster mode a password change of a
// stale activation is refused like any other write of it (its batch is
// fenced), and leaves the stored credentials as they were; the current
// activation's change commits.
func TestFencedCredentialsRefused(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		orig := sampleAccount(7, "fencedcreds")
		writeFresh(t, db, orig)
		epochA, acctA, err := db.ActivateAccount(7, "node-a")
		if err != nil || !acctA.SRP.equal(orig.SRP) {
			t.Fatalf("activation A: %+v, %v; want the stored credentials", acctA, err)
		}
		epochB, acctB, err := db.ActivateAccount(7, "node-b")
		if err != nil {
			t.Fatal(err)
		}
		reset := func(prev *Account, epoch uint64, v SRPVerifier) error {
			next := prev.Clone()
			next.SRP = v
			b := db.NewBatch()
			b.Fence(prev.ID, epoch)
			b.PutAccount(next, prev)
			if b.eb.count() != 1 {
				t.Errorf("a password change writes %d records, want 1 (the credentials)", b.eb.count())
			}
			return db.Commit(b)
		}
		stale := SRPVerifier{Salt: []byte{6}, Salt2: "ssssssssssssssssssssss", Verifier: []byte{6, 6}}
		if err := reset(acctA, epochA, stale); !errors.Is(err, ErrFenced) {
			t.Fatalf("the stale activation's password change: %v; want ErrFenced", err)
		}
		if got, err := db.Credentials(7); err != nil || !got.equal(orig.SRP) {
			t.Fatalf("credentials after the refused change: %+v, %v; want the original", got, err)
		}
		cur := SRPVerifier{Salt: []byte{8}, Salt2: "cccccccccccccccccccccc", Verifier: []byte{8, 8}}
		if err := reset(acctB, epochB, cur); err != nil {
			t.Fatalf("the current activation's password change: %v", err)
		}
		if got, err := db.Credentials(7); err != nil || !got.equal(cur) {
			t.Fatalf("credentials after the current change: %+v, %v; want %+v", got, err, cur)
		}
	})
}

// BenchmarkLiveProfileWrite is the storage side of a drop of a live
// account on Pebble: a profile write of a state without its credentials,
// committed (in memory). Up to schema version 4 it read the stored
// credentials to copy them into the profile record; since 5 it reads
// nothing.
//
//	go test -run '^$' -bench LiveProfileWrite -benchmem ./storage
func BenchmarkLiveProfileWrite(b *testing.B) {
	db := benchAccount(b)
	live, err := db.LoadAccount(1)
	if err != nil {
		b.Fatal(err)
	}
	live.DropCredentials()
	b.ReportAllocs()
	for b.Loop() {
		next := *live
		next.Tickets++
		batch := db.NewBatch()
		batch.PutAccount(&next, live)
		if err := db.Commit(batch); err != nil {
			b.Fatal(err)
		}
		live = &next
	}
}

// benchAccount is an in-memory database holding account 1 with full SRP
// credentials, for the benchmarks.
func benchAccount(b *testing.B) *DB {
	b.Helper()
	db, err := Open("", &Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	a := sampleAccount(1, "bench")
	a.SRP = SRPVerifier{Salt: bytes.Repeat([]byte{7}, 256), Salt2: "abcdefghijklmnopqrstuv", Verifier: bytes.Repeat([]byte{9}, 256)}
	batch := db.NewBatch()
	batch.PutAccount(a, nil)
	if err := db.Commit(batch); err != nil {
		b.Fatal(err)
	}
	return db
}

// CredentialsMatch answers for an account whose state dropped its
// credentials as for one that holds them, and follows new ones a change
// set on a dropped state.
func TestCredentialsMatchAfterDrop(t *testing.T) {
	a := &Account{SRP: SRPVerifier{Salt: []byte("salt-one"), Verifier: []byte{1}}}
	one, two := SaltFingerprint([]byte("salt-one")), SaltFingerprint([]byte("salt-two"))
	if !a.CredentialsMatch(one) || a.CredentialsMatch(two) {
		t.Fatal("holding its credentials: wrong match")
	}
	a.DropCredentials()
	if !a.CredentialsMatch(one) || a.CredentialsMatch(two) {
		t.Fatal("after DropCredentials: wrong match")
	}
	a.SRP = SRPVerifier{Salt: []byte("salt-two"), Verifier: []byte{2}} // a change sets new ones
	if a.CredentialsMatch(one) || !a.CredentialsMatch(two) {
		t.Fatal("with new credentials set: wrong match")
	}
	a.DropCredentials()
	if a.CredentialsMatch(one) || !a.CredentialsMatch(two) {
		t.Fatal("new credentials dropped: wrong match")
	}
}
