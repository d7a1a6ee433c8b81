package srp

import (
	"fmt"
	"io"
	"math/big"

	"filippo.io/bigmod"
)

const (
	// saltLen is the length of the salt s (sent as 512 hex characters).
	saltLen = padLen
	// salt2Len is the length of salt2, as in the captures.
	salt2Len = 22
	// salt2Alphabet holds printable ASCII that needs no escaping anywhere.
	salt2Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	// salt2Limit is the largest multiple of len(salt2Alphabet) that fits a
	// byte; bytes at or above it are redrawn so every character is equally
	// likely.
	salt2Limit = 256 / len(salt2Alphabet) * len(salt2Alphabet)
)

// NewVerifier creates the stored credentials of a new account: a 256-byte
// salt whose first byte is not zero (so clients that strip leading zeros and
// clients that do not agree), a 22-character salt2 of letters and digits, and
// the verifier v = g^x mod N as PAD(v). The output depends only on the bytes
// read from rnd (use crypto/rand.Reader outside tests).
func (g *Group) NewVerifier(login, password string, rnd io.Reader) (salt []byte, salt2 string, verifier []byte, err error) {
	salt, salt2, err = drawSalts(rnd)
	if err != nil {
		return nil, "", nil, err
	}
	return salt, salt2, g.Verifier(login, salt, g.PasswordSecret(password, salt2)), nil
}

// FakeVerifier returns credentials for a login that has no account, drawn
// from rnd exactly as NewVerifier draws real ones (pass a reader seeded from
// a server secret and the login, so that the answer is the same on every
// pre_auth). The verifier is a uniform value in [1, N) rather than g^x, so
// that making one costs no modular exponentiation: pre_auth for an unknown
// login takes the time of a known one. No password matches it.
func (g *Group) FakeVerifier(rnd io.Reader) (salt []byte, salt2 string, verifier []byte, err error) {
	salt, salt2, err = drawSalts(rnd)
	if err != nil {
		return nil, "", nil, err
	}
	buf := make([]byte, padLen+8) // 64 extra bits make the reduction's bias negligible
	if _, err := io.ReadFull(rnd, buf); err != nil {
		return nil, "", nil, fmt.Errorf("%w: %w", ErrRandomSource, err)
	}
	v := new(big.Int).SetBytes(buf)
	v.Mod(v, new(big.Int).Sub(g.n, big.NewInt(1)))
	v.Add(v, big.NewInt(1))
	return salt, salt2, v.FillBytes(make([]byte, padLen)), nil
}

// drawSalts draws a salt and a salt2 as NewVerifier describes.
func drawSalts(rnd io.Reader) (salt []byte, salt2 string, err error) {
	salt = make([]byte, saltLen)
	if _, err := io.ReadFull(rnd, salt); err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrRandomSource, err)
	}
	for tries := 0; salt[0] == 0; tries++ {
		if tries == maxRedraws {
			return nil, "", fmt.Errorf("%w: only zero bytes", ErrRandomSource)
		}
		if _, err := io.ReadFull(rnd, salt[:1]); err != nil {
			return nil, "", fmt.Errorf("%w: %w", ErrRandomSource, err)
		}
	}

	s2 := make([]byte, 0, salt2Len)
	var buf [salt2Len]byte
	for tries := 0; len(s2) < salt2Len; tries++ {
		if tries == maxRedraws {
			return nil, "", fmt.Errorf("%w: salt2 draws rejected", ErrRandomSource)
		}
		want := buf[:salt2Len-len(s2)]
		if _, err := io.ReadFull(rnd, want); err != nil {
			return nil, "", fmt.Errorf("%w: %w", ErrRandomSource, err)
		}
		for _, c := range want {
			if int(c) < salt2Limit {
				s2 = append(s2, salt2Alphabet[int(c)%len(salt2Alphabet)])
			}
		}
	}
	return salt, string(s2), nil
}

// Verifier returns PAD(v) with v = g^x mod N and x = H(s ‖ H(I ‖ ":" ‖ p)),
// for a login I (exactly as stored), salt s and password secret p (see
// PasswordSecret).
//
// x is secret (it opens the account as the password does): g^x is the
// constant-time fixed-base exponentiation.
func (g *Group) Verifier(login string, salt []byte, secret string) []byte {
	x := privateKeyBytes(login, salt, secret)
	defer clear(x[:])
	return g.fixed().exp(&x).Bytes(g.mod)
}

// StoredVerifier checks a verifier taken from another server's records
// (an operator's import) and returns it as PAD(v): v must be in [1, N),
// as NewServer requires of every stored verifier (ErrBadVerifier).
func (g *Group) StoredVerifier(verifier []byte) ([]byte, error) {
	v, err := bigmod.NewNat().SetBytes(verifier, g.mod)
	if err != nil || v.IsZero() == 1 {
		return nil, fmt.Errorf("%w: v not in [1, N)", ErrBadVerifier)
	}
	return v.Bytes(g.mod), nil
}
