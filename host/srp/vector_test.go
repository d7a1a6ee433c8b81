package srp

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// The test vector of protocol notes §1 ("verified independently").
const (
	vecLogin = "SouL"
	vecSalt2 = "205cd38bd6ea0017322406"
	vecA     = "2cf2668bf9d0e2358d43d41ea7ba3152e62f953519999ed8bf7ac94066c3974d2784e82d0e2841329d1188ebe8fa24ddab46a95e4882f801933ce2e4d3329d48fad794998429aa73786f2c6e0a8080672a7840ebfdb0135dc1276a04948a51a26785ddb64dc14e796c759c8a17368290ffdc6fe228c0fdf6b3a6e125cc4fbc532ee61442f6b2f8c44b7f288b60861d132aead63d8163c3bcf8f2651e47a600894a37997f2f9b9d273f1a82c6d4db545b78c882df45b79e4f05bb3bcaa4f0a58e6ed629a30f4b409627cef5a3943e8b342e2b9632099683b2f228c0b8c7086eaccd424b3c22df1fa599320ff21ee2510b4952a0a856bd0a6cf7cfd524fa5110e4"
	vecS     = "078f6068db52fd1cea4db48789b3ce8bfb47fdb33d4767d0c86e35104a5d8ad511aa18624529bc3176697a4f366098aa016464cfcdf3b8acd620ecf5bd553e98ff4364b8f39ef6ffd2893bf80e681cd00d9622c1270ce2ddb681ab097c713429d5875566e2ef1934abb99d870ddf83f74be33b4b3ba22f7dd93b50057c45d5fe47a49539c61178d4c06748d5519433bd62e9f083bd59bbb4ed4f3a8b3fffb0895e07e07230445ec64fabc9a4e27c975012b9f78922beff6759150312d8b0fab25afbb363a2ed9810d6d1180636b0f886fc74dbba51f89389df06405308d7d9f0c2c2775985ae71c03337b0ecb938b327d8883e506632260962f8223d2f2865e2"
	vecV     = "b0c856d02fc81d6e89d4ed0f6ab6f2b594349dc570c71b0182350568a55a78c082d515b30841ed28b4c72dd32d3cbb873ef7d9febf0c0f1f3a3870c90925b20ec88fcbdbbc89d5a1f8a7cf4c1c30c6c8428f031b1aa782bb8e0751f14998ba50364029a82344b48bd533c9c95a5e95211ea12cb0248ce3b21a974af4deb1a9cbe044d0b0df9aef81ad0a0424765ed4a2c22339c75dc0930e6768a2e59fb9bb7eee7da41e631c8a0cb8668efdd0f05b6050b90afa6dce4eab952c075f8d50809f9fe21dc230129a6ee9721e5a2adcf100bfe44c3cd672339cfbaf0f921523f901e3b5e5b53404c651d1f852b0f839520ca5f3f054e9b49651a8600031af54d7ee"
	vecB     = "d7f620e7b625bc907374d2c92ed3d399827e2ba025a89227394135e74b38db3a" // private b
	vecBPub  = "0f61bb9848afeeff12d24f3c1e37accb"                                 // B begins with
	vecM1    = "6523fe0eca24f04c280d9f6b9e5a2d3bec18686d773efdc35ed8f0b4f9057ca6"
	vecM2    = "57b765265e12dd060cae428c1483c1c38da910101cfa0839be833fcb461d8b55"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// vectorServer runs pre_auth of the vector; b comes from a reader that
// yields exactly b's bytes (a redraw would fail on EOF).
func vectorServer(t *testing.T, aHex string) *Server {
	t.Helper()
	srv, err := DefaultGroup().NewServer(vecLogin, mustHex(t, vecS), mustHex(t, vecV), aHex,
		bytes.NewReader(mustHex(t, vecB)))
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	return srv
}

func TestVector(t *testing.T) {
	tests := []struct {
		name string
		aHex string
		m1   string
	}{
		{"as given", vecA, vecM1},
		{"upper-case A and M1", strings.ToUpper(vecA), strings.ToUpper(vecM1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := vectorServer(t, tt.aHex)
			bHex := srv.BHex()
			if len(bHex) != 512 || !strings.HasPrefix(bHex, vecBPub) {
				t.Fatalf("B = %s…(%d chars), want prefix %s and 512 chars", bHex[:32], len(bHex), vecBPub)
			}
			if got := srv.SaltHex(); got != vecS {
				t.Errorf("SaltHex = %s…, want %s…", got[:16], vecS[:16])
			}
			m2, err := srv.Verify(tt.m1)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if m2 != vecM2 {
				t.Errorf("M2 = %s, want %s", m2, vecM2)
			}
			// A and S of the vector have no leading zero byte, so both forms
			// coincide and the padded one is reported.
			if srv.Form() != FormPadded {
				t.Errorf("Form = %v, want padded", srv.Form())
			}
		})
	}
}

func TestVectorRejectsWrongProof(t *testing.T) {
	srv := vectorServer(t, vecA)
	bad := []byte(vecM1)
	bad[0] = '7'
	if _, err := srv.Verify(string(bad)); !errors.Is(err, ErrBadProof) {
		t.Fatalf("Verify(altered M1) = %v, want ErrBadProof", err)
	}
}

// The vector gives v directly. Trying a handful of common passwords found
// that it is the verifier of password "test" under the md5-first form, which
// confirms that form (and x, v) against the reference. The spec-literal form
// does not give this v.
func TestVectorPassword(t *testing.T) {
	literal, err := NewGroup(DefaultNHex, DefaultG, DefaultMagic1, DefaultMagic2, HashSpecLiteral)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		grp  *Group
		want bool
	}{
		{DefaultGroup(), true},
		{literal, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.grp.Form()), func(t *testing.T) {
			v := tt.grp.Verifier(vecLogin, mustHex(t, vecS), tt.grp.PasswordSecret("test", vecSalt2))
			if got := hex.EncodeToString(v) == vecV; got != tt.want {
				t.Errorf("verifier of %q matches vector: %v, want %v", "test", got, tt.want)
			}
		})
	}
}
