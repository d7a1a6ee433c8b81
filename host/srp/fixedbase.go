package srp

import (
	"crypto/subtle"
	"math/big"

	"filippo.io/bigmod"
)

// Fixed-base exponentiation: g^e for the group's fixed g and N and a
// secret e of at most secretBits bits (b, a, and x, which are 256-bit
// hashes or draws), from a table computed once per Group.
//
// e is cut into fbWindows windows of fbBits bits, e = Σ d_i·2^(fbBits·i),
// so g^e = Π T[i][d_i] with T[i][d] = g^(d·2^(fbBits·i)): fbWindows
// multiplications and no squaring, against the secretBits squarings and
// secretBits/4 multiplications of a windowed exponentiation. Each T[i][d_i]
// is read by a scan of the whole row T[i] that keeps the entry under a
// mask (crypto/subtle), and every window multiplies, d_i = 0 included (its
// entry is 1), so neither the time nor the memory accessed depends on e.
// The multiplications are filippo.io/bigmod's constant-time Montgomery
// arithmetic.
const (
	secretBits = 8 * secretBytes
	fbBits     = 4
	fbEntries  = 1 << fbBits
	fbWindows  = secretBits / fbBits
)

// fixedBase holds the table T, row after row, each entry the limbs of a
// value < N (as bigmod.Nat.Bits lays them out): 64 rows × 16 entries ×
// 256 bytes = 256 KiB for the 2048-bit group.
type fixedBase struct {
	m     *bigmod.Modulus
	limbs int
	table []uint
}

// newFixedBase computes the table of g modulo n, with math/big (g, N and
// the table are public).
func newFixedBase(g, n *big.Int, m *bigmod.Modulus) *fixedBase {
	limbs := len(bigmod.NewNat().ExpandFor(m).Bits())
	f := &fixedBase{m: m, limbs: limbs, table: make([]uint, fbWindows*fbEntries*limbs)}
	base := new(big.Int).Set(g) // g^(2^(fbBits·i))
	buf := make([]byte, m.Size())
	var x big.Int
	for i := range fbWindows {
		x.SetInt64(1)
		for d := range fbEntries {
			nat, err := bigmod.NewNat().SetBytes(x.FillBytes(buf), m)
			if err != nil {
				panic(err) // x < N by construction
			}
			copy(f.entry(i, d), nat.Bits())
			x.Mul(&x, base).Mod(&x, n)
		}
		for range fbBits {
			base.Mul(base, base).Mod(base, n)
		}
	}
	return f
}

func (f *fixedBase) entry(window, digit int) []uint {
	at := (window*fbEntries + digit) * f.limbs
	return f.table[at : at+f.limbs]
}

// exp returns g^e mod N for the big-endian e, in constant time (see above).
func (f *fixedBase) exp(e *[secretBytes]byte) *bigmod.Nat {
	acc := bigmod.NewNat().ExpandFor(f.m)
	f.selectInto(acc.Bits(), 0, digit(e, 0))
	t := bigmod.NewNat().ExpandFor(f.m)
	for i := 1; i < fbWindows; i++ {
		f.selectInto(t.Bits(), i, digit(e, i))
		acc.Mul(t, f.m)
	}
	return acc
}

// digit returns window i of e (bits fbBits·i up), e big-endian.
func digit(e *[secretBytes]byte, i int) uint8 {
	b := e[secretBytes-1-i/2]
	if i%2 == 1 {
		b >>= 4
	}
	return b & (fbEntries - 1)
}

// selectInto writes T[window][d] to dst reading every entry of the row.
func (f *fixedBase) selectInto(dst []uint, window int, d uint8) {
	clear(dst)
	for j := range fbEntries {
		mask := -uint(subtle.ConstantTimeByteEq(uint8(j), d))
		for k, w := range f.entry(window, j) {
			dst[k] |= w & mask
		}
	}
}
