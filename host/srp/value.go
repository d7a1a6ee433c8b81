package srp

import (
	"fmt"
	"io"
	"math/big"
)

// padded is PAD(x): x big-endian, left-padded with zeros to the length of N.
type padded [padLen]byte

// minimal returns the big-endian bytes of x without leading zeros (what some
// clients hash instead of PAD(x)). It aliases p.
func (p *padded) minimal() []byte {
	i := 0
	for i < len(p)-1 && p[i] == 0 {
		i++
	}
	return p[i:]
}

// parsePublic decodes the hex text of a public value (A or B) into out and
// reports ErrBadPublicValue when it is unusable. Rules (documented choices):
//   - upper- or lower-case hex digits only: no sign, "0x" prefix or spaces;
//   - non-empty and at most 1024 characters; leading zeros are allowed, and so
//     is an odd length (a number's hex text whose leading zero nibble was
//     dropped is still that number);
//   - the value must fit in PAD width (256 bytes), because u and M1 hash
//     PAD(A) and PAD(B);
//   - the value must not be ≡ 0 mod N. Values in (N, 2^2048) are kept as sent,
//     unreduced, so the hashes match what the peer hashed; the arithmetic
//     reduces them.
func (g *Group) parsePublic(s string, out *padded) error {
	if len(s) == 0 || len(s) > maxPublicHex {
		return fmt.Errorf("%w: %d hex characters", ErrBadPublicValue, len(s))
	}
	*out = padded{}
	// Walk from the least significant nibble so odd lengths need no copy.
	for i, nib := len(s)-1, 0; i >= 0; i, nib = i-1, nib+1 {
		d, ok := hexDigit(s[i])
		if !ok {
			return fmt.Errorf("%w: not hex", ErrBadPublicValue)
		}
		if nib >= 2*padLen {
			if d != 0 {
				return fmt.Errorf("%w: longer than N", ErrBadPublicValue)
			}
			continue
		}
		pos := padLen - 1 - nib/2
		if nib%2 == 0 {
			out[pos] = d
		} else {
			out[pos] |= d << 4
		}
	}
	return nil
}

// checkPublic reports ErrBadPublicValue when x ≡ 0 mod N. Because N has
// exactly 2048 bits and x fits in 2048 bits, x < 2N, so x ≡ 0 mod N only for
// x = 0 or x = N; this avoids a division.
func (g *Group) checkPublic(x *big.Int) error {
	if x.Sign() == 0 || x.Cmp(g.n) == 0 {
		return fmt.Errorf("%w: ≡ 0 mod N", ErrBadPublicValue)
	}
	return nil
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// drawSecret fills buf from rnd and returns it as a non-zero integer in z.
// drawSecretBytes is drawSecret into a fixed array, for the constant-time
// arithmetic: a value of only zero bytes is redrawn.
func drawSecretBytes(rnd io.Reader, buf *[secretBytes]byte) error {
	for range maxRedraws {
		if _, err := io.ReadFull(rnd, buf[:]); err != nil {
			return fmt.Errorf("%w: %w", ErrRandomSource, err)
		}
		var or byte
		for _, c := range buf {
			or |= c
		}
		if or != 0 {
			return nil
		}
	}
	return fmt.Errorf("%w: only zero values", ErrRandomSource)
}

func drawSecret(rnd io.Reader, buf []byte, z *big.Int) error {
	for range maxRedraws {
		if _, err := io.ReadFull(rnd, buf); err != nil {
			return fmt.Errorf("%w: %w", ErrRandomSource, err)
		}
		if z.SetBytes(buf).Sign() != 0 {
			return nil
		}
	}
	return fmt.Errorf("%w: only zero values", ErrRandomSource)
}
