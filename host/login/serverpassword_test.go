package login

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

func md5hex(password string) string {
	sum := md5.Sum([]byte(password))
	return hex.EncodeToString(sum[:])
}

func TestCheckServerPassword(t *testing.T) {
	s := newHardService(t, nil)
	ctx := context.Background()
	want, err := s.db.LoginID("bench")
	if err != nil {
		t.Fatal(err)
	}
	for _, pass := range []string{md5hex("pw"), strings.ToUpper(md5hex("pw"))} {
		id, err := s.CheckServerPassword(ctx, "bench", pass, "192.0.2.1")
		if err != nil || id != want {
			t.Errorf("right password %s: %d, %v; want account %d", pass, id, err, want)
		}
	}
	for _, tc := range []struct {
		name, login, pass string
		reason            Reason
	}{
		{"wrong password", "bench", md5hex("wrong"), ReasonWrongPassword},
		{"the password itself", "bench", "pw", ReasonMalformed},
		{"the MD5 of another account's login", "other", md5hex("other"), ReasonWrongPassword},
		{"unknown login", "ghost", md5hex("pw"), ReasonWrongPassword},
		{"login of another case", "Bench", md5hex("pw"), ReasonWrongPassword},
		{"not hex", "bench", strings.Repeat("g", 32), ReasonMalformed},
		{"too short", "bench", md5hex("pw")[:31], ReasonMalformed},
		{"empty login", "", md5hex("pw"), ReasonMalformed},
		{"login too long", strings.Repeat("a", 13), md5hex("pw"), ReasonLoginTooLong},
	} {
		id, err := s.CheckServerPassword(ctx, tc.login, tc.pass, "198.51.100.9")
		if ReasonOf(err) != tc.reason || id != 0 {
			t.Errorf("%s: %d, %v; want reason %v", tc.name, id, err, tc.reason)
		}
	}
	// An unknown login and a wrong password read the same.
	_, errUnknown := s.CheckServerPassword(ctx, "ghost", md5hex("pw"), "198.51.100.9")
	_, errWrong := s.CheckServerPassword(ctx, "bench", md5hex("x"), "198.51.100.9")
	if Failure(errUnknown).Auth != Failure(errWrong).Auth {
		t.Errorf("unknown %q, wrong %q: told apart", Failure(errUnknown).Auth, Failure(errWrong).Auth)
	}
}

// Wrong server passwords and wrong SRP proofs spend one budget, per
// login and address group and per address group; malformed ones spend
// nothing.
func TestServerPasswordSharesFailureLimits(t *testing.T) {
	s := newHardService(t, func(set *Settings) {
		set.FailedProofsLogin = limit.Rate{Burst: 3, Every: time.Hour}
		set.FailedProofsAddress = limit.Rate{Burst: 5, Every: time.Hour}
	})
	ctx := context.Background()
	const ip = "192.0.2.1"
	for range 10 {
		if _, err := s.CheckServerPassword(ctx, "bench", "not-an-md5", ip); ReasonOf(err) != ReasonMalformed {
			t.Fatalf("malformed: %v", err)
		}
	}
	for i := range 2 {
		if _, err := s.CheckServerPassword(ctx, "bench", md5hex("wrong"), ip); ReasonOf(err) != ReasonWrongPassword {
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	if _, err := try(t, s, "bench", "wrong", ip); ReasonOf(err) != ReasonWrongPassword {
		t.Fatalf("SRP guess: %v", err)
	}
	// Three failures on bench from this address: both ways are closed to
	// it, even with the right password.
	if _, err := s.CheckServerPassword(ctx, "bench", md5hex("pw"), ip); ReasonOf(err) != ReasonTooManyFailures {
		t.Errorf("server password after 3 failures: %v, want %v", err, ReasonTooManyFailures)
	}
	if _, err := try(t, s, "bench", "pw", ip); ReasonOf(err) != ReasonTooManyFailures {
		t.Errorf("SRP login after 3 failures: %v, want %v", err, ReasonTooManyFailures)
	}
	// The account's owner elsewhere is not locked out.
	if _, err := s.CheckServerPassword(ctx, "bench", md5hex("pw"), "198.51.100.7"); err != nil {
		t.Errorf("another address: %v", err)
	}
	// The per-address budget covers every login, an unknown one too: two
	// more failures from this address use it up.
	for _, login := range []string{"other", "ghost"} {
		if _, err := s.CheckServerPassword(ctx, login, md5hex("wrong"), ip); ReasonOf(err) != ReasonWrongPassword {
			t.Fatalf("%s: %v", login, err)
		}
	}
	if _, err := s.CheckServerPassword(ctx, "other", md5hex("pw"), ip); ReasonOf(err) != ReasonTooManyFailures {
		t.Errorf("after 5 failures from one address: %v, want %v", err, ReasonTooManyFailures)
	}
	// An IPv6 address counts with its /64.
	for i, addr := range []string{"2001:db8::1", "2001:db8::2", "2001:db8::3"} {
		if _, err := s.CheckServerPassword(ctx, "other", md5hex("wrong"), addr); ReasonOf(err) != ReasonWrongPassword {
			t.Fatalf("v6 guess %d: %v", i, err)
		}
	}
	if _, err := s.CheckServerPassword(ctx, "other", md5hex("pw"), "2001:db8::4"); ReasonOf(err) != ReasonTooManyFailures {
		t.Errorf("after 3 failures from one /64: %v, want %v", err, ReasonTooManyFailures)
	}
}

// After a password change the old password fails and the new one works:
// the check reads the stored verifier, nothing cached.
func TestServerPasswordFollowsPasswordChange(t *testing.T) {
	s := newHardService(t, nil)
	ctx := context.Background()
	id, err := s.CheckServerPassword(ctx, "bench", md5hex("pw"), "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	salt, salt2, v, err := s.group.NewVerifier("bench", "new pw", rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := actors.Apply(ctx, s.sys, id, func(tx *actors.Tx) (struct{}, error) {
		tx.Account().SRP = storage.SRPVerifier{Salt: salt, Salt2: salt2, Verifier: v}
		return struct{}{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CheckServerPassword(ctx, "bench", md5hex("pw"), "192.0.2.1"); ReasonOf(err) != ReasonWrongPassword {
		t.Errorf("old password: %v, want %v", err, ReasonWrongPassword)
	}
	if got, err := s.CheckServerPassword(ctx, "bench", md5hex("new pw"), "192.0.2.1"); err != nil || got != id {
		t.Errorf("new password: %d, %v", got, err)
	}
}

func TestServerPasswordSpecLiteral(t *testing.T) {
	s := newHardService(t, nil)
	literal, err := srp.NewGroup(srp.DefaultNHex, srp.DefaultG, srp.DefaultMagic1, srp.DefaultMagic2, srp.HashSpecLiteral)
	if err != nil {
		t.Fatal(err)
	}
	s.group = literal
	_, err = s.CheckServerPassword(context.Background(), "bench", md5hex("pw"), "192.0.2.1")
	if ReasonOf(err) != ReasonInternal || !errors.Is(err, srp.ErrNoMD5Form) {
		t.Errorf("err = %v, want ReasonInternal wrapping srp.ErrNoMD5Form", err)
	}
}

// BenchmarkCheckServerPassword measures one game server's or manager's
// password check: the account's verifier read and one fixed-base
// exponentiation g^x, as a console sign-in costs.
func BenchmarkCheckServerPassword(b *testing.B) {
	s := newBenchService(b)
	ctx := context.Background()
	pass := md5hex("pw")
	for b.Loop() {
		if _, err := s.CheckServerPassword(ctx, "bench", pass, "192.0.2.1"); err != nil {
			b.Fatal(err)
		}
	}
}
