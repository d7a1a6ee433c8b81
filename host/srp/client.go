package srp

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"math/big"
)

// Client is the client side of one handshake, for tests and the load tester.
// It is not safe for concurrent use. g^a and g^x use the group's fixed-base
// table (fast, constant-time); S = (B − k·g^x)^(a + u·x) is math/big's
// variable-time Exp: the client's secrets are the tester's own.
type Client struct {
	// Form selects how A and S enter the proofs; set it before AHex and
	// Proof. With FormMinimal, AHex also sends A without leading zeros, as
	// such clients do.
	Form ProofForm

	grp      *Group
	login    string
	password string
	a        big.Int
	padA     padded
	padS     padded            // PAD(S) of the last Proof, for tests
	m2       [sha256.Size]byte // the M2 the server must answer
	proved   bool
}

// NewClient draws the private a (256 bits) from rnd and computes
// A = g^a mod N.
func (g *Group) NewClient(login, password string, rnd io.Reader) (*Client, error) {
	c := &Client{grp: g, login: login, password: password}
	var buf [secretBytes]byte
	if err := drawSecret(rnd, buf[:], &c.a); err != nil {
		return nil, err
	}
	copy(c.padA[:], g.fixed().exp(&buf).Bytes(g.mod))
	return c, nil
}

// AHex returns A as lowercase hex: 512 characters, or without leading zeros
// when Form is FormMinimal.
func (c *Client) AHex() string {
	if c.Form == FormMinimal {
		return new(big.Int).SetBytes(c.padA[:]).Text(16)
	}
	return hex.EncodeToString(c.padA[:])
}

// Proof takes the pre_auth answer (salt, salt2, B) and returns M1 as 64
// lowercase hex characters. It rejects a malformed salt (ErrBadSalt), a
// malformed B or B ≡ 0 mod N (ErrBadPublicValue) and u = 0
// (ErrZeroScrambler).
func (c *Client) Proof(saltHex, salt2, bHex string) (m1Hex string, err error) {
	g := c.grp
	salt, err := hex.DecodeString(saltHex)
	if err != nil || len(salt) == 0 {
		return "", ErrBadSalt
	}
	var padB padded
	if err := g.parsePublic(bHex, &padB); err != nil {
		return "", err
	}
	bPub := new(big.Int).SetBytes(padB[:])
	if err := g.checkPublic(bPub); err != nil {
		return "", err
	}
	u := new(big.Int).SetBytes(hashOf(c.padA[:], padB[:]))
	if u.Sign() == 0 {
		return "", ErrZeroScrambler
	}

	// S = (B − k·g^x)^(a + u·x) mod N
	xBytes := privateKeyBytes(c.login, salt, g.PasswordSecret(c.password, salt2))
	x := new(big.Int).SetBytes(xBytes[:])
	base := new(big.Int).SetBytes(g.fixed().exp(&xBytes).Bytes(g.mod))
	base.Mul(base, g.k)
	base.Sub(bPub, base)
	base.Mod(base, g.n) // Mod is Euclidean: the result is in [0, N)
	e := new(big.Int).Mul(u, x)
	e.Add(e, &c.a)
	new(big.Int).Exp(base, e, g.n).FillBytes(c.padS[:])

	aBytes, sBytes := c.padA[:], c.padS[:]
	if c.Form == FormMinimal {
		aBytes, sBytes = c.padA.minimal(), c.padS.minimal()
	}
	k := hashOf(sBytes)
	hI := sha256.Sum256([]byte(c.login))
	m1 := hashOf(g.hNxorG[:], hI[:], salt, aBytes, padB[:], k)
	copy(c.m2[:], hashOf(aBytes, m1, k))
	c.proved = true
	return hex.EncodeToString(m1), nil
}

// VerifyServer checks the server proof M2 (64 hex characters, either case)
// against the one expected after Proof; ErrBadProof when it differs.
func (c *Client) VerifyServer(m2Hex string) error {
	if !c.proved {
		return ErrHandshakeUsed
	}
	var m2 [sha256.Size]byte
	if !decodeDigest(m2Hex, &m2) {
		return fmt.Errorf("%w: not 64 hex characters", ErrBadProof)
	}
	if subtle.ConstantTimeCompare(m2[:], c.m2[:]) != 1 {
		return ErrBadProof
	}
	return nil
}
