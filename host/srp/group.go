package srp

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"filippo.io/bigmod"
)

// HashForm selects how the password secret p is derived from the password.
type HashForm string

const (
	// HashMD5First is the form the stock client and every independent client
	// use against the original service (protocol notes §1); the default:
	//	p = sha256hex( md5hex( md5hex(password) + salt2 + MAGIC1 ) + MAGIC2 )
	HashMD5First HashForm = "md5-first"
	// HashSpecLiteral is the literal reading of the service specification:
	//	p = sha256hex( md5hex( md5hex(password + salt2 + MAGIC1) + MAGIC2 ) )
	HashSpecLiteral HashForm = "spec-literal"
)

// Default group constants (protocol notes §1). They are configuration, never
// sent on the wire. N is 2048 bits and is not the RFC 5054 group.
const (
	DefaultNHex = "DA950C6C97918CAE89E4F5ECB32461032A217D740064BC12FC0723CD204BD02A7AE29B53F3310C13BA998B7910F8B6A14112CBC67BDD2427" +
		"EDF494CB8BCA68510C0AAEE5346BD320845981546873069B337C073B9A9369D500873D647D261CCED571826E54C6089E7D5085DC2AF01FD861" +
		"AE44C8E64BCA3EA4DCE942C5F5B89E5496C2741A9E7E9F509C261D104D11DD4494577038B33016E28D118AE4FD2E85D9C3557A2346FAECED3" +
		"EDBE0F4D694411686BA6E65FEE43A772DC84D394ADAE5A14AF33817351D29DE074740AA263187AB18E3A25665EACAA8267C16CDE064B1D5AF" +
		"0588893C89C1556D6AEF644A3BA6BA3F7DEC2F3D6FDC30AE43FBD6D144BB"
	DefaultG      = 2
	DefaultMagic1 = "[!~esTo0}"
	DefaultMagic2 = "taquzaph_?98phab&junaj=z=kuChusu"
)

const (
	// groupBits is the only size of N the protocol uses; fixing it lets every
	// padded value live in a fixed array.
	groupBits = 2048
	// padLen is the length of PAD(x): the byte length of N.
	padLen = groupBits / 8
	// maxPublicHex bounds the hex text of A or B (leading zeros allowed).
	maxPublicHex = 4 * padLen
	// secretBytes is the size of the private exponents a and b (256 bits).
	secretBytes = 32
	// maxRedraws bounds every redraw loop; a sound random source needs one or
	// two draws, so hitting it means the source is broken.
	maxRedraws = 64
)

// Group holds the fixed protocol constants and the values derived from them.
// It is immutable and safe for concurrent use.
type Group struct {
	n      *big.Int
	g      *big.Int
	k      *big.Int          // H(N ‖ PAD(g))
	hNxorG [sha256.Size]byte // H(N) XOR H(PAD(g)), the first M1 field
	// mod is N for the constant-time arithmetic of secret values, kPad
	// PAD(k) to load k into it, and fixed the table of g^e (fixedbase.go),
	// computed on first use.
	mod    *bigmod.Modulus
	kPad   padded
	fixed  func() *fixedBase
	magic1 string
	magic2 string
	form   HashForm
}

// NewGroup validates the constants and precomputes k and H(N) XOR H(PAD(g)).
// nHex is the hex text of N in either case; ASCII whitespace in it is ignored
// so a multi-line configuration value works. N must be an odd 2048-bit
// (probable) prime, 1 < g < N−1, both magic strings non-empty and form one of
// HashMD5First or HashSpecLiteral. Errors wrap ErrBadGroup.
func NewGroup(nHex string, g int64, magic1, magic2 string, form HashForm) (*Group, error) {
	nHex = strings.Join(strings.Fields(nHex), "")
	n, ok := new(big.Int).SetString(nHex, 16)
	switch {
	case !ok || n.Sign() <= 0 || strings.ContainsAny(nHex, "+-_xX"):
		return nil, fmt.Errorf("%w: N is not hex", ErrBadGroup)
	case n.BitLen() != groupBits:
		return nil, fmt.Errorf("%w: N has %d bits, want %d", ErrBadGroup, n.BitLen(), groupBits)
	case n.Bit(0) == 0:
		return nil, fmt.Errorf("%w: N is even", ErrBadGroup)
	case !n.ProbablyPrime(0):
		return nil, fmt.Errorf("%w: N is not prime", ErrBadGroup)
	}
	gi := big.NewInt(g)
	if g <= 1 || gi.Cmp(new(big.Int).Sub(n, big.NewInt(1))) >= 0 {
		return nil, fmt.Errorf("%w: g = %d out of range", ErrBadGroup, g)
	}
	if magic1 == "" || magic2 == "" {
		return nil, fmt.Errorf("%w: empty magic string", ErrBadGroup)
	}
	switch form {
	case HashMD5First, HashSpecLiteral:
	default:
		return nil, fmt.Errorf("%w: unknown hash form %q", ErrBadGroup, form)
	}

	var err error
	var nBytes, gPad [padLen]byte
	n.FillBytes(nBytes[:])
	gi.FillBytes(gPad[:])
	grp := &Group{
		n:      n,
		g:      gi,
		k:      new(big.Int).SetBytes(hashOf(nBytes[:], gPad[:])),
		magic1: magic1,
		magic2: magic2,
		form:   form,
	}
	if grp.mod, err = bigmod.NewModulus(nBytes[:]); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadGroup, err)
	}
	grp.k.FillBytes(grp.kPad[:]) // k < 2^256 < N
	grp.fixed = sync.OnceValue(func() *fixedBase { return newFixedBase(grp.g, grp.n, grp.mod) })
	hN, hG := sha256.Sum256(nBytes[:]), sha256.Sum256(gPad[:])
	for i := range grp.hNxorG {
		grp.hNxorG[i] = hN[i] ^ hG[i]
	}
	return grp, nil
}

var defaultGroup = sync.OnceValue(func() *Group {
	grp, err := NewGroup(DefaultNHex, DefaultG, DefaultMagic1, DefaultMagic2, HashMD5First)
	if err != nil {
		panic(err) // the constants above are fixed; covered by tests
	}
	return grp
})

// DefaultGroup returns the group of protocol notes §1 (DefaultNHex, g = 2,
// DefaultMagic1, DefaultMagic2, HashMD5First). Every call returns the same
// shared Group.
func DefaultGroup() *Group { return defaultGroup() }

// Form reports the password hash form of the group.
func (g *Group) Form() HashForm { return g.form }

// PasswordSecret returns p, the 64-character lowercase hex secret the client
// derives from the password and salt2 (see HashForm).
func (g *Group) PasswordSecret(password, salt2 string) string {
	if g.form == HashSpecLiteral {
		return sha256Hex(md5Hex(md5Hex(password+salt2+g.magic1) + g.magic2))
	}
	// HashMD5First; NewGroup admits no other form.
	return sha256Hex(md5Hex(md5Hex(password)+salt2+g.magic1) + g.magic2)
}

// privateKeyBytes returns x = H(s ‖ H(I ‖ ":" ‖ p)) as its 32 bytes.
func privateKeyBytes(login string, salt []byte, secret string) (x [secretBytes]byte) {
	inner := sha256.New()
	inner.Write([]byte(login))
	inner.Write([]byte{':'})
	inner.Write([]byte(secret))
	copy(x[:], hashOf(salt, inner.Sum(nil)))
	return x
}

// hashOf returns H(parts[0] ‖ parts[1] ‖ ...).
func hashOf(parts ...[]byte) []byte {
	d := sha256.New()
	for _, p := range parts {
		d.Write(p)
	}
	return d.Sum(nil)
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}
