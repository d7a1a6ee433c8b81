package srp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// seeded returns a deterministic random source for tests.
func seeded(seed uint64) io.Reader {
	var s [32]byte
	binary.LittleEndian.PutUint64(s[:], seed)
	return rand.NewChaCha8(s)
}

func TestNewVerifier(t *testing.T) {
	grp := DefaultGroup()
	for seed := range uint64(20) {
		salt, salt2, v, err := grp.NewVerifier("Player", "pw", seeded(seed))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(salt) != 256 || salt[0] == 0 {
			t.Errorf("seed %d: salt has %d bytes, first %#x", seed, len(salt), salt[0])
		}
		if len(salt2) != 22 {
			t.Errorf("seed %d: salt2 %q has %d chars", seed, salt2, len(salt2))
		}
		for _, c := range salt2 {
			if !strings.ContainsRune(salt2Alphabet, c) {
				t.Errorf("seed %d: salt2 %q has %q", seed, salt2, c)
			}
		}
		if want := grp.Verifier("Player", salt, grp.PasswordSecret("pw", salt2)); !bytes.Equal(v, want) || len(v) != 256 {
			t.Errorf("seed %d: verifier differs from Verifier()", seed)
		}

		salt1, salt21, v1, _ := grp.NewVerifier("Player", "pw", seeded(seed))
		if !bytes.Equal(salt, salt1) || salt2 != salt21 || !bytes.Equal(v, v1) {
			t.Errorf("seed %d: not deterministic", seed)
		}
	}
}

func TestNewVerifierRedraws(t *testing.T) {
	grp := DefaultGroup()
	// First salt byte zero: only that byte is redrawn (from the next byte,
	// 0x07). salt2 bytes >= 248 are skipped.
	in := make([]byte, 0, 300)
	in = append(in, 0)
	in = append(in, bytes.Repeat([]byte{0xab}, 255)...)
	in = append(in, 0x07)
	in = append(in, 0xff, 0xf8)                     // rejected: 2 of the first 22 bytes
	in = append(in, bytes.Repeat([]byte{0}, 21)...) // 'A' x21 (20 in the first read)
	in = append(in, 61)                             // '9', the last of the second read
	salt, salt2, _, err := grp.NewVerifier("x", "y", bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if salt[0] != 0x07 || salt[1] != 0xab || salt[255] != 0xab {
		t.Errorf("salt = %x…%x", salt[:2], salt[255])
	}
	if want := strings.Repeat("A", 21) + "9"; salt2 != want {
		t.Errorf("salt2 = %q, want %q", salt2, want)
	}

	tests := []struct {
		name string
		rnd  io.Reader
	}{
		{"all zero", bytes.NewReader(make([]byte, 4096))},
		{"short", bytes.NewReader([]byte{1, 2, 3})},
		{"all rejected for salt2", io.MultiReader(bytes.NewReader([]byte{1}), bytes.NewReader(bytes.Repeat([]byte{0xff}, 4096)))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, _, err := grp.NewVerifier("x", "y", tt.rnd); !errors.Is(err, ErrRandomSource) {
				t.Errorf("NewVerifier = %v, want ErrRandomSource", err)
			}
		})
	}
}
