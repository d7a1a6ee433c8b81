package srp

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"testing"
)

func TestPasswordSecretFromMD5(t *testing.T) {
	g := DefaultGroup()
	sum := md5.Sum([]byte("s3cret pw"))
	md5hex := hex.EncodeToString(sum[:])
	const salt2 = "205cd38bd6ea0017322406"
	got, err := g.PasswordSecretFromMD5(md5hex, salt2)
	if err != nil {
		t.Fatal(err)
	}
	if want := g.PasswordSecret("s3cret pw", salt2); got != want {
		t.Errorf("from the MD5: %s; from the password: %s", got, want)
	}

	salt := []byte{1, 2, 3}
	v := g.Verifier("SouL", salt, g.PasswordSecret("s3cret pw", salt2))
	if !g.VerifierMatches("SouL", salt, got, v) {
		t.Error("the right password's secret does not match its verifier")
	}
	other, _ := g.PasswordSecretFromMD5(hex.EncodeToString(make([]byte, 16)), salt2)
	if g.VerifierMatches("SouL", salt, other, v) {
		t.Error("a wrong password's secret matches")
	}
	if g.VerifierMatches("soul", salt, got, v) {
		t.Error("the login's case is ignored; it is part of x")
	}
	// A verifier stored without its leading zero bytes still compares.
	i := 0
	for i < len(v) && v[i] == 0 {
		i++
	}
	if !g.VerifierMatches("SouL", salt, got, v[i:]) {
		t.Error("an unpadded stored verifier does not match")
	}
	if g.VerifierMatches("SouL", salt, got, append([]byte{0}, v...)) {
		t.Error("a stored verifier longer than PAD(v) matches")
	}

	literal, err := NewGroup(DefaultNHex, DefaultG, DefaultMagic1, DefaultMagic2, HashSpecLiteral)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := literal.PasswordSecretFromMD5(md5hex, salt2); !errors.Is(err, ErrNoMD5Form) {
		t.Errorf("spec-literal: err = %v, want ErrNoMD5Form", err)
	}
}
