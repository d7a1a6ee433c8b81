package srp

import (
	"bytes"
	"errors"
	"io"
	"math/big"
	"strings"
	"testing"
)

type account struct {
	login, salt2   string
	salt, verifier []byte
}

func newAccount(t testing.TB, grp *Group, login, password string, seed uint64) account {
	t.Helper()
	salt, salt2, v, err := grp.NewVerifier(login, password, seeded(seed))
	if err != nil {
		t.Fatal(err)
	}
	return account{login, salt2, salt, v}
}

// login runs one full handshake and returns the first error and both sides.
func login(grp *Group, acc account, c *Client, serverRnd io.Reader) (*Server, error) {
	srv, err := grp.NewServer(acc.login, acc.salt, acc.verifier, c.AHex(), serverRnd)
	if err != nil {
		return nil, err
	}
	m1, err := c.Proof(srv.SaltHex(), acc.salt2, srv.BHex())
	if err != nil {
		return srv, err
	}
	m2, err := srv.Verify(m1)
	if err != nil {
		return srv, err
	}
	if len(m2) != 64 || strings.ToLower(m2) != m2 {
		return srv, errors.New("M2 is not 64 lowercase hex")
	}
	return srv, c.VerifyServer(m2)
}

func TestRoundTrip(t *testing.T) {
	literal, err := NewGroup(DefaultNHex, DefaultG, DefaultMagic1, DefaultMagic2, HashSpecLiteral)
	if err != nil {
		t.Fatal(err)
	}
	groups := []*Group{DefaultGroup(), literal}
	tests := []struct {
		name     string
		accGroup *Group // creates the account
		cliGroup *Group // the client's password hash
		login    string // as the client sends it
		password string // as the client types it
		form     ProofForm
		wantErr  error
	}{
		{"md5-first", groups[0], groups[0], "Player", "pw", FormPadded, nil},
		{"spec-literal", groups[1], groups[1], "Player", "pw", FormPadded, nil},
		{"md5-first minimal", groups[0], groups[0], "Player", "pw", FormMinimal, nil},
		{"spec-literal minimal", groups[1], groups[1], "Player", "pw", FormMinimal, nil},
		{"wrong password", groups[0], groups[0], "Player", "pW", FormPadded, ErrBadProof},
		{"wrong password minimal", groups[1], groups[1], "Player", "", FormMinimal, ErrBadProof},
		{"login case differs", groups[0], groups[0], "player", "pw", FormPadded, ErrBadProof},
		{"client uses the other form", groups[0], groups[1], "Player", "pw", FormPadded, ErrBadProof},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc := newAccount(t, tt.accGroup, "Player", "pw", uint64(i))
			c, err := tt.cliGroup.NewClient(tt.login, tt.password, seeded(uint64(100+i)))
			if err != nil {
				t.Fatal(err)
			}
			c.Form = tt.form
			_, err = login(tt.accGroup, acc, c, seeded(uint64(200+i)))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("login = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// findLeadingZero returns seeds for a client and a server whose handshake
// has a leading zero byte in A (inS false) or in S but not A (inS true),
// searching successive seeds. Each happens with probability 1/256 per draw,
// so the bound of 4000 draws fails with probability about e^-15.
func findLeadingZero(t *testing.T, acc account, inS bool) (clientSeed, serverSeed uint64) {
	t.Helper()
	grp := DefaultGroup()
	for seed := range uint64(4000) {
		c, err := grp.NewClient(acc.login, "pw", seeded(seed))
		if err != nil {
			t.Fatal(err)
		}
		if !inS {
			if c.padA[0] == 0 {
				return seed, seed
			}
			continue
		}
		if c.padA[0] == 0 {
			continue
		}
		srv, err := grp.NewServer(acc.login, acc.salt, acc.verifier, c.AHex(), seeded(seed))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Proof(srv.SaltHex(), acc.salt2, srv.BHex()); err != nil {
			t.Fatal(err)
		}
		if c.padS[0] == 0 {
			return seed, seed
		}
	}
	t.Fatal("no leading zero byte found in 4000 draws")
	return 0, 0
}

func TestProofForms(t *testing.T) {
	grp := DefaultGroup()
	acc := newAccount(t, grp, "Player", "pw", 7)
	for _, inS := range []bool{false, true} {
		name := map[bool]string{false: "A has a leading zero byte", true: "S has a leading zero byte"}[inS]
		t.Run(name, func(t *testing.T) {
			cs, ss := findLeadingZero(t, acc, inS)
			t.Logf("client seed %d, server seed %d", cs, ss)
			m1 := map[ProofForm]string{}
			for _, form := range []ProofForm{FormPadded, FormMinimal} {
				c, _ := grp.NewClient(acc.login, "pw", seeded(cs))
				c.Form = form
				if form == FormMinimal && c.padA[0] == 0 && len(c.AHex()) >= 511 {
					t.Errorf("minimal AHex keeps leading zeros: %d chars", len(c.AHex()))
				}
				srv, err := grp.NewServer(acc.login, acc.salt, acc.verifier, c.AHex(), seeded(ss))
				if err != nil {
					t.Fatal(err)
				}
				if m1[form], err = c.Proof(srv.SaltHex(), acc.salt2, srv.BHex()); err != nil {
					t.Fatal(err)
				}
				m2, err := srv.Verify(m1[form])
				if err != nil {
					t.Fatalf("%v: Verify: %v", form, err)
				}
				if srv.Form() != form {
					t.Errorf("server matched %v, want %v", srv.Form(), form)
				}
				if want := map[ProofForm]string{FormPadded: "padded", FormMinimal: "minimal"}[form]; form.String() != want {
					t.Errorf("String = %q, want %q", form.String(), want)
				}
				if err := c.VerifyServer(m2); err != nil {
					t.Errorf("%v: VerifyServer: %v", form, err)
				}
			}
			if m1[FormPadded] == m1[FormMinimal] {
				t.Error("padded and minimal M1 coincide; the case does not test the forms")
			}
		})
	}
}

func TestNewServerPublicValue(t *testing.T) {
	grp := DefaultGroup()
	acc := newAccount(t, grp, "Player", "pw", 1)
	n := new(big.Int).Set(grp.n)
	nHex := n.Text(16)
	valid := vecA
	tests := []struct {
		name string
		aHex string
		ok   bool
	}{
		{"valid", valid, true},
		{"upper case", strings.ToUpper(valid), true},
		{"odd length (leading zero nibble dropped)", "abc", true},
		{"leading zeros up to 1024 chars", strings.Repeat("0", 512) + valid, true},
		{"A = 1", "1", true},
		{"A = N-1", new(big.Int).Sub(n, big.NewInt(1)).Text(16), true},
		{"A = N+1 (unreduced, fits PAD)", new(big.Int).Add(n, big.NewInt(1)).Text(16), true},
		{"empty", "", false},
		{"not hex", "xyz", false},
		{"non-hex inside", valid[:100] + "g" + valid[101:], false},
		{"0x prefix", "0x" + valid, false},
		{"sign", "+" + valid, false},
		{"space", " " + valid, false},
		{"zero", "0", false},
		{"zero padded", strings.Repeat("0", 512), false},
		{"A = N", nHex, false},
		{"A = N upper case", strings.ToUpper(nHex), false},
		{"A = 2N", new(big.Int).Lsh(n, 1).Text(16), false},
		{"A = 3N", new(big.Int).Mul(n, big.NewInt(3)).Text(16), false},
		{"A = 2^2048", "1" + strings.Repeat("0", 512), false},
		{"over-long (1025 chars)", strings.Repeat("0", 513) + valid, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := grp.NewServer(acc.login, acc.salt, acc.verifier, tt.aHex, seeded(9))
			if tt.ok {
				if err != nil {
					t.Fatalf("NewServer: %v", err)
				}
				if b := srv.BHex(); len(b) != 512 || b[:2] == "00" || strings.ToLower(b) != b {
					t.Errorf("B = %s… (%d chars)", b[:8], len(b))
				}
				return
			}
			if !errors.Is(err, ErrBadPublicValue) {
				t.Fatalf("NewServer = %v, want ErrBadPublicValue", err)
			}
		})
	}
}

func TestNewServerAccount(t *testing.T) {
	grp := DefaultGroup()
	acc := newAccount(t, grp, "Player", "pw", 1)
	tests := []struct {
		name    string
		salt, v []byte
		rnd     io.Reader
		wantErr error
	}{
		{"empty salt", nil, acc.verifier, seeded(1), ErrBadVerifier},
		{"empty verifier", acc.salt, nil, seeded(1), ErrBadVerifier},
		{"zero verifier", acc.salt, make([]byte, 256), seeded(1), ErrBadVerifier},
		{"verifier = N", acc.salt, grp.n.Bytes(), seeded(1), ErrBadVerifier},
		{"random source fails", acc.salt, acc.verifier, bytes.NewReader([]byte{1}), ErrRandomSource},
		{"random source gives zeros", acc.salt, acc.verifier, bytes.NewReader(make([]byte, 4096)), ErrRandomSource},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := grp.NewServer(acc.login, tt.salt, tt.v, vecA, tt.rnd); !errors.Is(err, tt.wantErr) {
				t.Fatalf("NewServer = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestVerifyProofText(t *testing.T) {
	tests := []struct {
		name    string
		m1      string
		wantErr error
	}{
		{"empty", "", ErrBadProof},
		{"63 chars", vecM1[:63], ErrBadProof},
		{"65 chars", vecM1 + "0", ErrBadProof},
		{"not hex", "z" + vecM1[1:], ErrBadProof},
		{"all zero", strings.Repeat("0", 64), ErrBadProof},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := vectorServer(t, vecA)
			if _, err := srv.Verify(tt.m1); !errors.Is(err, tt.wantErr) {
				t.Fatalf("Verify = %v, want %v", err, tt.wantErr)
			}
			// One proof attempt per pre_auth: even the right M1 is refused now.
			if _, err := srv.Verify(vecM1); !errors.Is(err, ErrHandshakeUsed) {
				t.Fatalf("second Verify = %v, want ErrHandshakeUsed", err)
			}
		})
	}
}

func TestClientRejects(t *testing.T) {
	grp := DefaultGroup()
	acc := newAccount(t, grp, "Player", "pw", 3)
	c, err := grp.NewClient("Player", "pw", seeded(4))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.VerifyServer(vecM2); !errors.Is(err, ErrHandshakeUsed) {
		t.Errorf("VerifyServer before Proof = %v, want ErrHandshakeUsed", err)
	}
	srv, err := grp.NewServer(acc.login, acc.salt, acc.verifier, c.AHex(), seeded(5))
	if err != nil {
		t.Fatal(err)
	}
	n := grp.n
	tests := []struct {
		name    string
		salt, b string
		wantErr error
	}{
		{"B = 0", srv.SaltHex(), "0", ErrBadPublicValue},
		{"B = 0 padded", srv.SaltHex(), strings.Repeat("0", 512), ErrBadPublicValue},
		{"B = N", srv.SaltHex(), n.Text(16), ErrBadPublicValue},
		{"B = 2N", srv.SaltHex(), new(big.Int).Lsh(n, 1).Text(16), ErrBadPublicValue},
		{"B empty", srv.SaltHex(), "", ErrBadPublicValue},
		{"B not hex", srv.SaltHex(), "q" + srv.BHex()[1:], ErrBadPublicValue},
		{"salt empty", "", srv.BHex(), ErrBadSalt},
		{"salt not hex", "zz", srv.BHex(), ErrBadSalt},
		{"salt odd length", "abc", srv.BHex(), ErrBadSalt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := c.Proof(tt.salt, acc.salt2, tt.b); !errors.Is(err, tt.wantErr) {
				t.Fatalf("Proof = %v, want %v", err, tt.wantErr)
			}
		})
	}

	// A server answering the wrong M2 is refused; upper-case hex is fine.
	m1, err := c.Proof(strings.ToUpper(srv.SaltHex()), acc.salt2, strings.ToUpper(srv.BHex()))
	if err != nil {
		t.Fatal(err)
	}
	m2, err := srv.Verify(m1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.VerifyServer(strings.ToUpper(m2)); err != nil {
		t.Errorf("VerifyServer(upper case) = %v", err)
	}
	for _, bad := range []string{vecM2, "", m2[:63], "g" + m2[1:]} {
		if err := c.VerifyServer(bad); !errors.Is(err, ErrBadProof) {
			t.Errorf("VerifyServer(%q) = %v, want ErrBadProof", bad, err)
		}
	}
}
