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
