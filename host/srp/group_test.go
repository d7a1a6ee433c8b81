package srp

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"testing"
)

func TestNewGroup(t *testing.T) {
	n, _ := new(big.Int).SetString(DefaultNHex, 16)
	hexOf := func(x *big.Int) string { return x.Text(16) }
	// 2^2047 + 1 is odd, 2048 bits and divisible by 3.
	composite := new(big.Int).Lsh(big.NewInt(1), 2047)
	composite.Add(composite, big.NewInt(1))

	tests := []struct {
		name   string
		nHex   string
		g      int64
		m1, m2 string
		form   HashForm
		ok     bool
	}{
		{"default", DefaultNHex, 2, DefaultMagic1, DefaultMagic2, HashMD5First, true},
		{"spec literal", DefaultNHex, 2, DefaultMagic1, DefaultMagic2, HashSpecLiteral, true},
		{"lower case, split lines", strings.ToLower(DefaultNHex[:100]) + "\n  " + DefaultNHex[100:], 2, DefaultMagic1, DefaultMagic2, HashMD5First, true},
		{"not hex", "xyz", 2, DefaultMagic1, DefaultMagic2, HashMD5First, false},
		{"signed", "-" + DefaultNHex, 2, DefaultMagic1, DefaultMagic2, HashMD5First, false},
		{"empty", "", 2, DefaultMagic1, DefaultMagic2, HashMD5First, false},
		{"even", hexOf(new(big.Int).Sub(n, big.NewInt(1))), 2, DefaultMagic1, DefaultMagic2, HashMD5First, false},
		{"2047 bits", hexOf(new(big.Int).Rsh(n, 1)), 2, DefaultMagic1, DefaultMagic2, HashMD5First, false},
		{"2049 bits", hexOf(new(big.Int).Lsh(n, 1)), 2, DefaultMagic1, DefaultMagic2, HashMD5First, false},
		{"composite", hexOf(composite), 2, DefaultMagic1, DefaultMagic2, HashMD5First, false},
		{"g = 1", DefaultNHex, 1, DefaultMagic1, DefaultMagic2, HashMD5First, false},
		{"g = 0", DefaultNHex, 0, DefaultMagic1, DefaultMagic2, HashMD5First, false},
		{"g < 0", DefaultNHex, -2, DefaultMagic1, DefaultMagic2, HashMD5First, false},
		{"empty magic1", DefaultNHex, 2, "", DefaultMagic2, HashMD5First, false},
		{"empty magic2", DefaultNHex, 2, DefaultMagic1, "", HashMD5First, false},
		{"empty form", DefaultNHex, 2, DefaultMagic1, DefaultMagic2, "", false},
		{"unknown form", DefaultNHex, 2, DefaultMagic1, DefaultMagic2, "MD5-FIRST", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			grp, err := NewGroup(tt.nHex, tt.g, tt.m1, tt.m2, tt.form)
			if tt.ok {
				if err != nil {
					t.Fatalf("NewGroup: %v", err)
				}
				if grp.n.Cmp(n) != 0 || grp.Form() != tt.form {
					t.Errorf("group N or form differs")
				}
				return
			}
			if !errors.Is(err, ErrBadGroup) {
				t.Fatalf("NewGroup = %v, want ErrBadGroup", err)
			}
		})
	}
}

func TestDefaultGroup(t *testing.T) {
	grp := DefaultGroup()
	if grp != DefaultGroup() {
		t.Error("DefaultGroup returns different groups")
	}
	if grp.Form() != HashMD5First || grp.g.Int64() != 2 || grp.magic1 != DefaultMagic1 || grp.magic2 != DefaultMagic2 {
		t.Errorf("DefaultGroup constants differ from protocol notes")
	}
	// k = H(N ‖ PAD(g)), H(N) XOR H(PAD(g)), computed here from scratch.
	nb := mustHex(t, DefaultNHex)
	gPad := make([]byte, 256)
	gPad[255] = 2
	k := sha256.Sum256(append(append([]byte{}, nb...), gPad...))
	if grp.k.Cmp(new(big.Int).SetBytes(k[:])) != 0 {
		t.Error("k differs")
	}
	hN, hG := sha256.Sum256(nb), sha256.Sum256(gPad)
	for i := range hN {
		if grp.hNxorG[i] != hN[i]^hG[i] {
			t.Fatal("H(N) XOR H(PAD(g)) differs")
		}
	}
}

func TestPasswordSecret(t *testing.T) {
	md5h := func(s string) string { x := md5.Sum([]byte(s)); return hex.EncodeToString(x[:]) }
	shah := func(s string) string { x := sha256.Sum256([]byte(s)); return hex.EncodeToString(x[:]) }
	literal, err := NewGroup(DefaultNHex, DefaultG, DefaultMagic1, DefaultMagic2, HashSpecLiteral)
	if err != nil {
		t.Fatal(err)
	}
	const pw, salt2 = "Secret pw", "abcDEF0123456789xyzXYZ"
	tests := []struct {
		grp  *Group
		want string
	}{
		{DefaultGroup(), shah(md5h(md5h(pw)+salt2+DefaultMagic1) + DefaultMagic2)},
		{literal, shah(md5h(md5h(pw+salt2+DefaultMagic1) + DefaultMagic2))},
	}
	for _, tt := range tests {
		t.Run(string(tt.grp.Form()), func(t *testing.T) {
			got := tt.grp.PasswordSecret(pw, salt2)
			if got != tt.want {
				t.Errorf("PasswordSecret = %s, want %s", got, tt.want)
			}
			if len(got) != 64 || strings.ToLower(got) != got {
				t.Errorf("PasswordSecret %q is not 64 lowercase hex", got)
			}
		})
	}
	if DefaultGroup().PasswordSecret(pw, salt2) == literal.PasswordSecret(pw, salt2) {
		t.Error("the two forms agree")
	}
}
