package login

import (
	"context"
	"crypto/rand"
	"strconv"
	"testing"

	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

// These tests come from a review of the account and login lifecycle (each
// failed before its fix).

// newCredentials are fresh credentials of login for password.
func newCredentials(t *testing.T, login, password string) storage.SRPVerifier {
	t.Helper()
	salt, salt2, v, err := srp.DefaultGroup().NewVerifier(login, password, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return storage.SRPVerifier{Salt: salt, Salt2: salt2, Verifier: v}
}

// A reset ended the sessions of the reset account only: a thief who had
// switched into another account of the same main account switched
// straight back, with no password.
func TestAResetEndsTheSessionsOfEveryAccountOfTheMain(t *testing.T) {
	s := newHardService(t, nil)
	ctx := context.Background()
	sub := register(t, s, "benchsub", "subpw", "bench")
	mainID, _ := s.db.LoginID("bench")

	stolen, err := try(t, s, "bench", "pw", "203.0.113.9")
	if err != nil {
		t.Fatal(err)
	}
	sw, err := s.SwitchAuth(ctx, "benchsub", strconv.FormatUint(uint64(sub.ID), 10), stolen.Cookie, "203.0.113.9")
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.ResetPassword(ctx, mainID, newCredentials(t, "bench", "new-secret"))
	if err != nil || n != 2 {
		t.Fatalf("reset: %d sessions ended, %v; want 2", n, err)
	}
	for _, c := range []string{stolen.Cookie, sw.Cookie} {
		if _, err := s.Authenticate(c); err == nil {
			t.Errorf("session %s… survived the reset", c[:8])
		}
	}
	if back, err := s.SwitchAuth(ctx, "bench", strconv.FormatUint(uint64(mainID), 10), sw.Cookie, "203.0.113.9"); err == nil {
		t.Errorf("the sub-account's session switched back into the reset account (cookie %s…)", back.Cookie[:8])
	}
	if _, err := try(t, s, "bench", "pw", "203.0.113.9"); !isReason(err, ReasonWrongPassword) {
		t.Errorf("the old password after the reset: %v, want a wrong password", err)
	}
	if _, err := try(t, s, "bench", "new-secret", "198.51.100.1"); err != nil {
		t.Errorf("the new password: %v", err)
	}
}

// A handshake begun before a reset carried the old verifier: its proof
// with the old password, sent after the reset, opened a session.
func TestAHandshakeBeganBeforeAResetIsRefused(t *testing.T) {
	s := newHardService(t, nil)
	ctx := context.Background()
	id, _ := s.db.LoginID("bench")
	cl, _ := srp.DefaultGroup().NewClient("bench", "pw", rand.Reader)
	pre, err := s.PreAuth(ctx, "bench", cl.AHex(), "203.0.113.9", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ResetPassword(ctx, id, newCredentials(t, "bench", "new-secret")); err != nil {
		t.Fatal(err)
	}
	m1, _ := cl.Proof(pre.Salt, pre.Salt2, pre.B)
	rec, err := s.SRPAuth(ctx, "bench", m1, "203.0.113.9", "")
	if err == nil {
		t.Fatalf("the old password logged in after the reset (cookie %s…)", rec.Cookie[:8])
	}
	if !isReason(err, ReasonNoPendingLogin) {
		t.Errorf("the old handshake's proof: %v, want please log in again", err)
	}
	if stored, _ := s.db.AccountSessions(id); len(stored) != 0 {
		t.Errorf("%d sessions stored", len(stored))
	}
}

// A login whose session committed failed afterwards when a sub-account
// listed was gone (deleted between the reads): the reply said "Internal
// error" while the session was stored and, past sessions_per_account, the
// player's older session was ended by it.
func TestALoginDoesNotFailAfterItsCommit(t *testing.T) {
	s := newHardService(t, func(set *Settings) { set.SessionsPerAccount = 1 })
	if _, err := try(t, s, "bench", "pw", "198.51.100.7"); err != nil {
		t.Fatal(err)
	}
	id, _ := s.db.LoginID("bench")
	// What the login reads in the middle of a sub-account's deletion: its
	// entry in the list, its profile gone.
	b := s.db.NewBatch()
	b.PutSubAccount(id, 999)
	if err := s.db.Commit(b); err != nil {
		t.Fatal(err)
	}
	rec, err := try(t, s, "bench", "pw", "198.51.100.7")
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	if _, err := s.Authenticate(rec.Cookie); err != nil {
		t.Errorf("the login's session: %v", err)
	}
}

// switch_auth told any logged-in player which logins exist and their ids:
// an unknown login, a login with another id and another player's account
// each had their own answer.
func TestSwitchAuthTellsNothingOfOtherLogins(t *testing.T) {
	s := newHardService(t, nil)
	ctx := context.Background()
	rec, err := try(t, s, "bench", "pw", "203.0.113.9")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := s.db.LoginID("other")
	for _, tc := range []struct{ login, id string }{
		{"nosuchuser", "1"},
		{"other", "1"},
		{"other", strconv.FormatUint(uint64(other), 10)},
	} {
		if _, err := s.SwitchAuth(ctx, tc.login, tc.id, rec.Cookie, "203.0.113.9"); !isReason(err, ReasonNotYourAccount) {
			t.Errorf("switch_auth %s (id %s): %v, want not your account", tc.login, tc.id, err)
		}
	}
}

// A reset ended the family's sessions one account after another: a thief
// who logged in with the stolen password and switched into another
// account of the family could switch back into the reset account between
// its commit and the ending of that other account's sessions, and keep
// the new session. A session now carries the password check its chain
// began with, and a switch whose chain's password was reset since is
// refused in the target's actor. (From a second review.)
func TestAResetLeavesNoSessionOfTheStolenPasswordsChain(t *testing.T) {
	s := newHardService(t, nil)
	ctx := context.Background()
	victim, _ := s.db.LoginID("bench")
	vid := strconv.FormatUint(uint64(victim), 10)
	var sibs []string
	for i := 0; i < 8; i++ {
		sib := register(t, s, "sib"+strconv.Itoa(i), "x", "bench")
		sibs = append(sibs, strconv.FormatUint(uint64(sib.ID), 10))
	}
	password := "pw"
	for round := 0; round < 10; round++ {
		stolen, err := try(t, s, "bench", password, "203.0.113.9")
		if err != nil {
			t.Fatal(err)
		}
		foothold, err := s.SwitchAuth(ctx, "sib7", sibs[7], stolen.Cookie, "203.0.113.9")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		stop, done := make(chan struct{}), make(chan struct{})
		go func() { // the thief switches back and forth during the reset
			defer close(done)
			from := foothold.Cookie
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				login, id := "bench", vid
				if i%2 == 1 {
					login, id = "sib"+strconv.Itoa(i%8), sibs[i%8]
				}
				if sw, err := s.SwitchAuth(ctx, login, id, from, "203.0.113.9"); err == nil {
					got = append(got, sw.Cookie)
					from = sw.Cookie
				}
			}
		}()
		password = "new" + strconv.Itoa(round)
		if _, err := s.ResetPassword(ctx, victim, newCredentials(t, "bench", password)); err != nil {
			t.Fatal(err)
		}
		close(stop)
		<-done
		for _, c := range append(got, stolen.Cookie, foothold.Cookie) {
			if sess, err := s.Authenticate(c); err == nil {
				t.Fatalf("round %d: a session of the stolen password's chain (account %d) survived the reset", round, sess.AccountID)
			}
		}
	}
}

// A switch whose chain began on an account deleted since was refused as
// if that account's password had been reset, though the chain's other
// sessions stay valid (a deletion leaves them); and a switch back into
// the reset account (the window before the family's sessions end) got the
// srpAuth wording instead of Invalid cookie. (From a third review; both
// failed before.)
func TestASessionChainAfterADeletionAndAReset(t *testing.T) {
	s := newHardService(t, nil)
	ctx := context.Background()
	mainID, _ := s.db.LoginID("bench")
	mid := strconv.FormatUint(uint64(mainID), 10)
	a := register(t, s, "subA", "subpw", "bench")
	b := register(t, s, "subB", "subpw2", "bench")
	rec, err := try(t, s, "subA", "subpw", "198.51.100.7")
	if err != nil {
		t.Fatal(err)
	}
	onMain, err := s.SwitchAuth(ctx, "bench", mid, rec.Cookie, "198.51.100.7")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.sys.DeleteAccount(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SwitchAuth(ctx, "subB", strconv.FormatUint(uint64(b.ID), 10), onMain.Cookie, "198.51.100.7"); err != nil {
		t.Fatalf("a live session of the main account switching after subA's deletion: %v", err)
	}
	// The reset's first commit alone (the window before the family's
	// sessions end), of the account the new chain began on.
	stolen, err := try(t, s, "bench", "pw", "203.0.113.9")
	if err != nil {
		t.Fatal(err)
	}
	foothold, err := s.SwitchAuth(ctx, "subB", strconv.FormatUint(uint64(b.ID), 10), stolen.Cookie, "203.0.113.9")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.sys.Apply(ctx, mainID, resetCredentials{newCredentials(t, "bench", "new")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SwitchAuth(ctx, "bench", mid, foothold.Cookie, "203.0.113.9"); !isReason(err, ReasonInvalidCookie) {
		t.Errorf("a switch back into the reset account: %v, want Invalid cookie", err)
	}
}
