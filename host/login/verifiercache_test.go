package login

import (
	"context"
	"crypto/rand"
	"strconv"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

// deleteElsewhere deletes the account of login straight through storage,
// as another node of a cluster does: this service's delete hook
// (forgetAccount) never runs, so its login-to-id cache keeps the old id.
func deleteElsewhere(t *testing.T, s *Service, login string) {
	t.Helper()
	id, err := s.db.LoginID(login)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.db.AccountRecords(id)
	if err != nil {
		t.Fatal(err)
	}
	b := s.db.NewBatch()
	b.DeleteAccountRecords(r)
	if err := s.db.Commit(b); err != nil {
		t.Fatal(err)
	}
}

// register creates login with password (a sub-account of parent when
// parent is not "").
func register(t *testing.T, s *Service, login, password, parent string) *storage.Account {
	t.Helper()
	salt, salt2, v, err := srp.DefaultGroup().NewVerifier(login, password, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.sys.CreateAccount(context.Background(), &actors.NewAccount{Login: login, ParentLogin: parent,
		Account: storage.Account{Nickname: login + strconv.Itoa(len(password)), SRP: storage.SRPVerifier{Salt: salt, Salt2: salt2, Verifier: v}}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A login whose cached account was deleted where this service's delete
// hook did not run (another node) and then registered again is read from
// storage again: pre_auth and srpAuth check the new account's password,
// and switch_auth reaches the new account. Before the fix the cached id
// of the deleted account was used: pre_auth failed as an internal error
// and switch_auth refused the new account's id as not the login's.
func TestStaleCachedLoginIsReadAgain(t *testing.T) {
	s := newHardService(t, nil)
	// pre_auth caches other's id (and leaves its actor unstarted: a live
	// actor is on the node that owns the account, which is the one that
	// deletes it).
	if _, err := s.PreAuth(context.Background(), "other", attackA(t), "192.0.2.1", ""); err != nil {
		t.Fatal(err)
	}
	if id, ok := s.verifiers.Get("other"); !ok || s.sys.Published(id) != nil {
		t.Fatalf("other's id cached %v, its actor live: want cached and not live", ok)
	}
	deleteElsewhere(t, s, "other")
	if _, err := try(t, s, "other", "pw", "192.0.2.1"); !isReason(err, ReasonWrongPassword) {
		t.Fatalf("login of a deleted account: %v, want a wrong password", err)
	}
	again := register(t, s, "other", "new password", "")
	rec, err := try(t, s, "other", "new password", "192.0.2.1")
	if err != nil {
		t.Fatalf("login registered again: %v", err)
	}
	if rec.AccountID != strconv.FormatUint(uint64(again.ID), 10) {
		t.Errorf("logged in to account %s, want %d", rec.AccountID, again.ID)
	}
	if _, err := try(t, s, "other", "pw", "192.0.2.1"); !isReason(err, ReasonWrongPassword) {
		t.Errorf("the deleted account's password: %v, want a wrong password", err)
	}

	// switch_auth: "alt" is cached while it is someone else's main account,
	// then deleted elsewhere and registered again as bench's sub-account.
	bench, err := try(t, s, "bench", "pw", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	alt := register(t, s, "alt", "pw", "")
	if _, err := s.SwitchAuth(context.Background(), "alt", strconv.FormatUint(uint64(alt.ID), 10), bench.Cookie, "192.0.2.1"); !isReason(err, ReasonNotYourAccount) {
		t.Fatalf("switch to another player's account: %v", err)
	}
	deleteElsewhere(t, s, "alt")
	if _, err := s.SwitchAuth(context.Background(), "alt", strconv.FormatUint(uint64(alt.ID), 10), bench.Cookie, "192.0.2.1"); !isReason(err, ReasonNotYourAccount) {
		t.Fatalf("switch to a deleted account: %v, want not your account", err)
	}
	sub := register(t, s, "alt", "pw", "bench")
	sw, err := s.SwitchAuth(context.Background(), "alt", strconv.FormatUint(uint64(sub.ID), 10), bench.Cookie, "192.0.2.1")
	if err != nil {
		t.Fatalf("switch to the login registered again: %v", err)
	}
	if sw.AccountID != strconv.FormatUint(uint64(sub.ID), 10) {
		t.Errorf("switched to account %s, want %d", sw.AccountID, sub.ID)
	}
}

func isReason(err error, r Reason) bool { return err != nil && ReasonOf(err) == r }
