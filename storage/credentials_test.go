package storage

import (
	"bytes"
	"errors"
	"testing"
)

// TestDroppedCredentialsStayStored: a state without its credentials
// (DropCredentials) writes a profile that keeps the stored ones, and a
// change that sets new ones stores them.
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
	db, err := Open("", &Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	a := sampleAccount(1, "bench")
	a.SRP = SRPVerifier{Salt: bytes.Repeat([]byte{7}, 256), Salt2: "abcdefghijklmnopqrstuv", Verifier: bytes.Repeat([]byte{9}, 256)}
	batch := db.NewBatch()
	batch.PutAccount(a, nil)
	if err := db.Commit(batch); err != nil {
		b.Fatal(err)
	}
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
