package srp

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"filippo.io/bigmod"
)

// exponents are the edge cases of the fixed-base windows and random ones.
func exponents(t testing.TB) [][secretBytes]byte {
	var out [][secretBytes]byte
	var e [secretBytes]byte
	out = append(out, e) // 0: every window's digit 0
	e[secretBytes-1] = 1
	out = append(out, e) // 1
	for i := range e {
		e[i] = 0xff
	}
	out = append(out, e) // 2^256 - 1: every digit 15
	e = [secretBytes]byte{0x80}
	out = append(out, e) // only the top bit
	e = [secretBytes]byte{0x0f, 0xf0}
	out = append(out, e) // a digit straddling a byte boundary
	rng := mrand.New(mrand.NewPCG(1, 2))
	for range 16 {
		for i := range e {
			e[i] = byte(rng.Uint32())
		}
		out = append(out, e)
	}
	return out
}

// TestFixedBaseMatchesExp: the table's g^e is math/big's g^e for edge and
// random exponents.
func TestFixedBaseMatchesExp(t *testing.T) {
	g := DefaultGroup()
	for _, e := range exponents(t) {
		want := new(big.Int).Exp(g.g, new(big.Int).SetBytes(e[:]), g.n).FillBytes(make([]byte, padLen))
		if got := g.fixed().exp(&e).Bytes(g.mod); !bytes.Equal(got, want) {
			t.Errorf("g^%x differs from math/big's", e)
		}
	}
}

// referenceServer is the server arithmetic as it was with math/big (the
// naive formulas of the package doc), for TestServerMatchesReference.
func referenceServer(g *Group, v, b, padA []byte) (padB, padS padded) {
	vi, bi, ai := new(big.Int).SetBytes(v), new(big.Int).SetBytes(b), new(big.Int).SetBytes(padA)
	bPub := new(big.Int).Exp(g.g, bi, g.n)
	bPub.Add(bPub, new(big.Int).Mul(g.k, vi)).Mod(bPub, g.n)
	bPub.FillBytes(padB[:])
	u := sha256.Sum256(append(append([]byte{}, padA...), padB[:]...))
	s := new(big.Int).Exp(vi, new(big.Int).SetBytes(u[:]), g.n)
	s.Mul(s, ai).Mod(s, g.n)
	s.Exp(s, bi, g.n).FillBytes(padS[:])
	return padB, padS
}

// TestServerMatchesReference: with the constant-time arithmetic, B and S
// are those of the math/big formulas, over random verifiers, client values
// (A above N included) and b.
func TestServerMatchesReference(t *testing.T) {
	g := DefaultGroup()
	rng := mrand.New(mrand.NewPCG(3, 4))
	for i := range 12 {
		var b [secretBytes]byte
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		v, _ := rand.Int(rand.Reader, g.n)
		v.Add(v, big.NewInt(1)).Mod(v, g.n)
		var padA padded
		a, _ := rand.Int(rand.Reader, g.n)
		if i%3 == 0 { // A in (N, 2^2048): kept as sent, reduced for the arithmetic
			a.Add(a, g.n)
			if a.BitLen() > groupBits {
				a.Sub(a, g.n)
			}
		}
		a.FillBytes(padA[:])
		vb := v.FillBytes(make([]byte, padLen))
		srv, err := g.NewServer("login", []byte{1}, vb, hex.EncodeToString(padA[:]), bytes.NewReader(b[:]))
		if err != nil {
			if padB, _ := referenceServer(g, vb, b[:], padA[:]); padB[0] == 0 {
				continue // the server redraws b here, the reader has no more
			}
			t.Fatal(err)
		}
		wantB, wantS := referenceServer(g, vb, b[:], padA[:])
		if srv.padB != wantB {
			t.Fatalf("case %d: B differs from the math/big formula", i)
		}
		// The server accepts the proof built from the reference S, and
		// answers the reference M2: its S is the reference S.
		k := sha256.Sum256(wantS[:])
		hI := sha256.Sum256([]byte("login"))
		m1 := hashOf(g.hNxorG[:], hI[:], []byte{1}, padA[:], wantB[:], k[:])
		m2, err := srv.Verify(hex.EncodeToString(m1))
		if err != nil {
			t.Fatalf("case %d: the proof from the math/big S is refused: %v", i, err)
		}
		if want := hex.EncodeToString(hashOf(padA[:], m1, k[:])); m2 != want {
			t.Fatalf("case %d: M2 %s, want %s", i, m2, want)
		}
	}
}

// Benchmarks of each step of a server login, against math/big's modexp
// (a 256-bit exponent, as b, u and x are).

func benchBase(b *testing.B) (*Group, *big.Int, [secretBytes]byte) {
	g := DefaultGroup()
	base, err := rand.Int(rand.Reader, g.n)
	if err != nil {
		b.Fatal(err)
	}
	var e [secretBytes]byte
	rand.Read(e[:])
	e[0] |= 0x80
	g.fixed() // the table is built once per process, outside the timings
	return g, base, e
}

// BenchmarkModExpMathBig is the naive step: one math/big Exp.
func BenchmarkModExpMathBig(b *testing.B) {
	g, base, e := benchBase(b)
	ei := new(big.Int).SetBytes(e[:])
	var z big.Int
	for b.Loop() {
		z.Exp(base, ei, g.n)
	}
}

// BenchmarkFixedBaseGB is g^b from the table (pre_auth's exponentiation).
func BenchmarkFixedBaseGB(b *testing.B) {
	g, _, e := benchBase(b)
	b.ReportAllocs()
	for b.Loop() {
		g.fixed().exp(&e)
	}
}

// BenchmarkBigmodExp is one constant-time exponentiation of a secret base
// or with a secret exponent (v^u, then (A·v^u)^b in srpAuth).
func BenchmarkBigmodExp(b *testing.B) {
	g, base, e := benchBase(b)
	x, err := bigmod.NewNat().SetBytes(base.FillBytes(make([]byte, padLen)), g.mod)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		bigmod.NewNat().Exp(x, e[:], g.mod)
	}
}

// BenchmarkFixedBaseTable is building the table (once per process).
func BenchmarkFixedBaseTable(b *testing.B) {
	g := DefaultGroup()
	for b.Loop() {
		newFixedBase(g.g, g.n, g.mod)
	}
}
