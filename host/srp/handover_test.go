package srp

import (
	"errors"
	"testing"
)

// TestExportedHandshakeResumesOnce: a handshake exported on one node and
// resumed on another checks the client's proof, once; the exporting Server
// can no longer check any.
func TestExportedHandshakeResumesOnce(t *testing.T) {
	grp := DefaultGroup()
	acc := newAccount(t, grp, "Player", "secret", 1)
	c, err := grp.NewClient("Player", "secret", seeded(2))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := grp.NewServer(acc.login, acc.salt, acc.verifier, c.AHex(), seeded(3))
	if err != nil {
		t.Fatal(err)
	}
	st, err := srv.Export()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Export(); !errors.Is(err, ErrHandshakeUsed) {
		t.Fatalf("second Export: %v, want ErrHandshakeUsed", err)
	}
	m1, err := c.Proof(srv.SaltHex(), acc.salt2, srv.BHex())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Verify(m1); !errors.Is(err, ErrHandshakeUsed) {
		t.Fatalf("Verify on the exporting server: %v, want ErrHandshakeUsed", err)
	}
	res, err := grp.ResumeServer(st)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := res.Verify(m1)
	if err != nil {
		t.Fatalf("Verify on the resumed server: %v", err)
	}
	if err := c.VerifyServer(m2); err != nil {
		t.Fatal(err)
	}
	if _, err := res.Verify(m1); !errors.Is(err, ErrHandshakeUsed) {
		t.Fatalf("second Verify: %v, want ErrHandshakeUsed", err)
	}
	bad := st
	bad.Secret = bad.Secret[:5]
	if _, err := grp.ResumeServer(bad); err == nil {
		t.Fatal("a truncated state resumed")
	}
}
