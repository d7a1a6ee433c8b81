package srp

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/big"

	"filippo.io/bigmod"
)

// ProofForm names how A and S enter M1, K and M2.
type ProofForm uint8

const (
	// FormPadded hashes PAD(A) and PAD(S), as the protocol notes define.
	FormPadded ProofForm = iota
	// FormMinimal hashes the minimal (unpadded) big-endian bytes of A and S,
	// as some clients do. It differs from FormPadded only when A or S has a
	// leading zero byte (about 1 login in 128).
	FormMinimal
)

// String returns "padded" or "minimal".
func (f ProofForm) String() string {
	if f == FormMinimal {
		return "minimal"
	}
	return "padded"
}

// Server is the server side of one pending handshake: the state kept from
// pre_auth (NewServer) until srpAuth (Verify). It is not safe for concurrent
// use and allows one Verify.
type Server struct {
	grp   *Group
	login string
	salt  []byte
	v     *bigmod.Nat // secret: the verifier, constant-time arithmetic only
	a     *bigmod.Nat // A mod N (A as sent is padA)
	b     [secretBytes]byte
	padA  padded
	padB  padded
	form  ProofForm
	used  bool
}

// NewServer starts a handshake for the account (login exactly as stored, its
// salt and PAD(v) or v bytes) and the client's A in hex. It checks A (see
// ErrBadPublicValue), draws a 256-bit b from rnd (redrawn while PAD(B)
// starts with a zero byte) and computes B = (k·v + g^b) mod N. salt is
// copied. Use crypto/rand.Reader as rnd outside tests.
func (g *Group) NewServer(login string, salt, verifier []byte, aHex string, rnd io.Reader) (*Server, error) {
	if len(salt) == 0 {
		return nil, fmt.Errorf("%w: empty salt", ErrBadVerifier)
	}
	s := &Server{grp: g, login: login, salt: bytes.Clone(salt)}
	// v is secret: bigmod checks v < N in constant time; v = 0 (a broken
	// record, not a secret worth hiding) is refused as before.
	v, err := bigmod.NewNat().SetBytes(verifier, g.mod)
	if err != nil || v.IsZero() == 1 {
		return nil, fmt.Errorf("%w: v not in [1, N)", ErrBadVerifier)
	}
	s.v = v
	if err := g.parsePublic(aHex, &s.padA); err != nil {
		return nil, err
	}
	if err := g.checkPublic(new(big.Int).SetBytes(s.padA[:])); err != nil {
		return nil, err
	}
	// A < 2^2048 may exceed N (kept as sent for the hashes): reduced here.
	if s.a, err = bigmod.NewNat().SetOverflowingBytes(s.padA[:], g.mod); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPublicValue, err)
	}

	// k·v, constant-time: v is secret.
	kv, err := bigmod.NewNat().SetBytes(g.kPad[:], g.mod)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadGroup, err) // k < 2^256 < N: never
	}
	kv.Mul(s.v, g.mod)
	fixed := g.fixed()
	for range maxRedraws {
		if err := drawSecretBytes(rnd, &s.b); err != nil {
			return nil, err
		}
		// B = k·v + g^b: g^b from the fixed-base table, b secret.
		bPub := fixed.exp(&s.b).Add(kv, g.mod)
		// Clients disagree on stripping leading zeros; a non-zero first
		// byte makes PAD(B) and the minimal bytes of B the same.
		if copy(s.padB[:], bPub.Bytes(g.mod)); s.padB[0] != 0 {
			return s, nil
		}
	}
	return nil, fmt.Errorf("%w: B kept a leading zero byte", ErrRandomSource)
}

// BHex returns B as 512 lowercase hex characters.
func (s *Server) BHex() string { return hex.EncodeToString(s.padB[:]) }

// SaltHex returns the account salt s as lowercase hex.
func (s *Server) SaltHex() string { return hex.EncodeToString(s.salt) }

// Salt is the account's salt the handshake was started with (not a
// secret; do not modify it).
func (s *Server) Salt() []byte { return s.salt }

// Form reports which form the proof accepted by Verify was built in.
func (s *Server) Form() ProofForm { return s.form }

// Verify checks the client's proof M1 (64 hex characters, either case) and
// returns the server proof M2 as 64 lowercase hex characters. M1 is accepted
// in FormPadded or FormMinimal, both compared in constant time, and M2 is
// built in the form that matched. Only the first call does any work; later
// calls return ErrHandshakeUsed. A wrong or malformed M1 gives ErrBadProof.
func (s *Server) Verify(m1Hex string) (m2Hex string, err error) {
	return s.verify(m1Hex, false)
}

// Try is Verify for a server that keeps several handshakes of one login and
// cannot tell which one a proof was meant for: a proof that matches consumes
// the handshake as Verify does, but a wrong or malformed one leaves it
// usable, so that a third party's bogus proof cannot cancel another client's
// login. Each Try costs two modular exponentiations; the caller bounds how
// many wrong proofs it tries.
func (s *Server) Try(m1Hex string) (m2Hex string, err error) {
	return s.verify(m1Hex, true)
}

func (s *Server) verify(m1Hex string, keepOnMismatch bool) (m2Hex string, err error) {
	if s.used {
		return "", ErrHandshakeUsed
	}
	s.used = true
	defer func() {
		if keepOnMismatch && errors.Is(err, ErrBadProof) {
			s.used = false
			return
		}
		// b is needed by this call only; wiping it means a Server kept by
		// mistake cannot answer again.
		clear(s.b[:])
	}()

	var m1 [sha256.Size]byte
	if !decodeDigest(m1Hex, &m1) {
		return "", fmt.Errorf("%w: not 64 hex characters", ErrBadProof)
	}

	d := sha256.New()
	var sum [sha256.Size]byte
	// u is public (a hash of A and B).
	u := digest(d, &sum, s.padA[:], s.padB[:])
	if new(big.Int).SetBytes(u).Sign() == 0 {
		return "", ErrZeroScrambler
	}

	// S = (A · v^u)^b mod N: two of the three modular exponentiations of a
	// login (g^b was the first), both constant-time: v and b are secret,
	// and so is every value derived from them.
	m := s.grp.mod
	sv := bigmod.NewNat().Exp(s.v, u, m)
	sv.Mul(s.a, m)
	sv = bigmod.NewNat().Exp(sv, s.b[:], m)
	var padS padded
	copy(padS[:], sv.Bytes(m))

	// Build both candidate proofs whatever M1 holds, so the time taken does
	// not tell whether S has a leading zero byte.
	hI := sha256.Sum256([]byte(s.login))
	kPad := sha256.Sum256(padS[:])
	kMin := sha256.Sum256(padS.minimal())
	m1Pad := s.clientProof(d, hI[:], s.padA[:], kPad[:])
	m1Min := s.clientProof(d, hI[:], s.padA.minimal(), kMin[:])
	okPad := subtle.ConstantTimeCompare(m1Pad[:], m1[:])
	okMin := subtle.ConstantTimeCompare(m1Min[:], m1[:])

	var aBytes, k []byte
	switch {
	case okPad == 1:
		s.form, aBytes, k = FormPadded, s.padA[:], kPad[:]
	case okMin == 1:
		s.form, aBytes, k = FormMinimal, s.padA.minimal(), kMin[:]
	default:
		return "", ErrBadProof
	}
	return hex.EncodeToString(digest(d, &sum, aBytes, m1[:], k)), nil
}

// clientProof returns M1 = H((H(N) XOR H(PAD(g))) ‖ H(I) ‖ s ‖ A ‖ PAD(B) ‖ K)
// with A and K in the caller's form.
func (s *Server) clientProof(d hash.Hash, hI, a, k []byte) (m1 [sha256.Size]byte) {
	digest(d, &m1, s.grp.hNxorG[:], hI, s.salt, a, s.padB[:], k)
	return m1
}

// digest resets d, hashes parts into it and writes the sum to out, which it
// returns as a slice.
func digest(d hash.Hash, out *[sha256.Size]byte, parts ...[]byte) []byte {
	d.Reset()
	for _, p := range parts {
		d.Write(p)
	}
	return d.Sum(out[:0])
}

// decodeDigest decodes 64 hex characters of either case into out.
func decodeDigest(s string, out *[sha256.Size]byte) bool {
	if len(s) != 2*len(out) {
		return false
	}
	for i := range out {
		hi, ok1 := hexDigit(s[2*i])
		lo, ok2 := hexDigit(s[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		out[i] = hi<<4 | lo
	}
	return true
}
