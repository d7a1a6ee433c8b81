package srp

import (
	"crypto/subtle"
	"errors"
)

// ErrNoMD5Form reports a group whose password hash form cannot be computed
// from the MD5 of the password: HashSpecLiteral hashes the password with
// salt2 before any MD5, so only the password itself opens it.
var ErrNoMD5Form = errors.New("srp: password hash form needs the password, not its MD5")

// PasswordSecretFromMD5 returns p, as PasswordSecret does, from md5hex, the
// lowercase hex MD5 of the password that game servers and their managers
// send instead of the password (the first step of HashMD5First):
//
//	p = sha256hex( md5hex( md5hex + salt2 + MAGIC1 ) + MAGIC2 )
//
// It fails with ErrNoMD5Form under HashSpecLiteral. md5hex is used as
// given; the caller checks that it is 32 lowercase hex characters.
func (g *Group) PasswordSecretFromMD5(md5hex, salt2 string) (string, error) {
	if g.form != HashMD5First {
		return "", ErrNoMD5Form
	}
	return sha256Hex(md5Hex(md5hex+salt2+g.magic1) + g.magic2), nil
}

// VerifierMatches reports whether the secret p derived for login and salt
// gives the stored verifier, comparing PAD(v) in constant time. stored may
// be PAD(v) or v without its leading zero bytes; anything longer than
// PAD(v) matches nothing.
func (g *Group) VerifierMatches(login string, salt []byte, secret string, stored []byte) bool {
	got := g.Verifier(login, salt, secret)
	want := make([]byte, len(got))
	if len(stored) > len(want) {
		return false
	}
	copy(want[len(want)-len(stored):], stored)
	return subtle.ConstantTimeCompare(got, want) == 1
}
