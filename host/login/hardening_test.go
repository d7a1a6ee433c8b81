package login

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

// newHardService is a login service over in-memory storage with the
// accounts "bench" and "other" (password "pw"), with edit applied to its
// settings.
func newHardService(t *testing.T, edit func(*Settings)) *Service {
	t.Helper()
	return newHardServiceAt(t, edit, nil)
}

// newHardServiceAt is newHardService on the clock now (nil: the wall
// clock).
func newHardServiceAt(t *testing.T, edit func(*Settings), now func() time.Time) *Service {
	t.Helper()
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	sys := actors.New(db, actors.Options{})
	t.Cleanup(func() { sys.Shutdown(); db.Close() })
	grp := srp.DefaultGroup()
	for _, login := range []string{"bench", "other"} {
		salt, salt2, v, err := grp.NewVerifier(login, "pw", rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sys.CreateAccount(context.Background(), &actors.NewAccount{Login: login,
			Account: storage.Account{Nickname: login, SRP: storage.SRPVerifier{Salt: salt, Salt2: salt2, Verifier: v}}}); err != nil {
			t.Fatal(err)
		}
	}
	set := Settings{CookieLifetime: time.Hour, PreAuthLifetime: time.Minute, Secret: []byte("test-secret-test-secret"), KeyVersion: "0001"}
	if edit != nil {
		edit(&set)
	}
	return New(grp, sys, set, now, nil)
}

// try logs in as login with password from ip and returns the session
// record or the error.
func try(t *testing.T, s *Service, login, password, ip string) (*SessionRecord, error) {
	t.Helper()
	cl, err := srp.DefaultGroup().NewClient(login, password, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pre, err := s.PreAuth(context.Background(), login, cl.AHex(), ip, "")
	if err != nil {
		return nil, err
	}
	m1, err := cl.Proof(pre.Salt, pre.Salt2, pre.B)
	if err != nil {
		t.Fatal(err)
	}
	return s.SRPAuth(context.Background(), login, m1, ip, "")
}

// A stranger's pre_auth and bogus srpAuth, interleaved with every step of
// the player's login, never stop it (finding 2 of issue 9: they used to
// replace and consume the player's handshake).
func TestThirdPartyCannotCancelHandshake(t *testing.T) {
	s := newHardService(t, nil)
	ctx := context.Background()
	attacker := func() {
		cl, _ := srp.DefaultGroup().NewClient("bench", "guess", rand.Reader)
		if _, err := s.PreAuth(ctx, "bench", cl.AHex(), "203.0.113.9", ""); err != nil {
			t.Fatalf("attacker pre_auth: %v", err)
		}
		bogus := "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
		if _, err := s.SRPAuth(ctx, "bench", bogus, "203.0.113.9", ""); ReasonOf(err) != ReasonWrongPassword {
			t.Fatalf("attacker srpAuth: %v", err)
		}
	}
	for i := range 10 {
		cl, _ := srp.DefaultGroup().NewClient("bench", "pw", rand.Reader)
		attacker()
		pre, err := s.PreAuth(ctx, "bench", cl.AHex(), "198.51.100.7", "")
		if err != nil {
			t.Fatal(err)
		}
		attacker()
		attacker()
		m1, _ := cl.Proof(pre.Salt, pre.Salt2, pre.B)
		rec, err := s.SRPAuth(ctx, "bench", m1, "198.51.100.7", "")
		if err != nil {
			t.Fatalf("round %d: the player's login failed: %v", i, err)
		}
		if err := cl.VerifyServer(rec.Proof); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPendingHandshakeLimits(t *testing.T) {
	s := newHardService(t, func(set *Settings) { set.PreAuthPerAddress = 2; set.PreAuthMaxPending = 6 })
	ctx := context.Background()
	a := func() string { cl, _ := srp.DefaultGroup().NewClient("x", "y", rand.Reader); return cl.AHex() }
	pre := func(login, ip string) {
		t.Helper()
		if _, err := s.PreAuth(ctx, login, a(), ip, ""); err != nil {
			t.Fatalf("pre_auth %s from %s: %v", login, ip, err)
		}
	}
	held := func(login, ip string) bool {
		s.pending.mu.Lock()
		defer s.pending.mu.Unlock()
		return s.pending.byKey[pendingKey(login, ip)] != nil
	}
	// One address, one login: its second pre_auth replaces its first.
	for range 5 {
		pre("bench", "192.0.2.1")
	}
	if n := s.pending.len(); n != 1 {
		t.Errorf("5 pre_auths from one address on one login: %d pending, want 1", n)
	}
	// The per-address budget: the address's third login drops its own
	// oldest handshake.
	pre("other", "192.0.2.1")
	pre("nosuchlogin", "192.0.2.1")
	if held("bench", "192.0.2.1") || !held("other", "192.0.2.1") || !held("nosuchlogin", "192.0.2.1") {
		t.Error("an address over its budget did not drop its own oldest handshake")
	}
	// A /64 is one address group: its addresses share one budget (and one
	// handshake per login).
	for i, login := range []string{"bench", "other", "nosuchlogin", "bench", "x5"} {
		pre(login, fmt.Sprintf("2001:db8:1:2::%x", i+1))
	}
	if n := s.pending.len(); n != 4 {
		t.Errorf("%d pending, want 2 of 192.0.2.1 and 2 of 2001:db8:1:2::/64", n)
	}
	// The full set drops from a group holding the most, never from an
	// address holding one.
	pre("bench", "192.0.2.7")
	pre("bench", "192.0.2.8") // 6: full
	pre("other", "2001:db8:1:2::99")
	pre("bench", "192.0.2.9")
	if !held("bench", "192.0.2.7") || !held("bench", "192.0.2.8") || !held("bench", "192.0.2.9") {
		t.Error("the full set dropped the handshake of an address holding one")
	}
	if n := s.pending.len(); n != 6 {
		t.Errorf("%d pending, want 6 (the cap)", n)
	}
}

func TestFailedProofLimits(t *testing.T) {
	s := newHardService(t, func(set *Settings) {
		set.FailedProofsLogin = limit.Rate{Burst: 3, Every: time.Hour}
		set.FailedProofsAddress = limit.Rate{Burst: 5, Every: time.Hour}
	})
	for i := range 3 {
		if _, err := try(t, s, "bench", "wrong", "192.0.2.1"); ReasonOf(err) != ReasonWrongPassword {
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	// The 4th guess on that login from that address is refused before any
	// proof is checked, even with the right password.
	if _, err := try(t, s, "bench", "pw", "192.0.2.1"); ReasonOf(err) != ReasonTooManyFailures {
		t.Fatalf("after 3 failures: %v, want %v", err, ReasonTooManyFailures)
	}
	// The player, from their own address, is not locked out by it.
	if _, err := try(t, s, "bench", "pw", "198.51.100.7"); err != nil {
		t.Fatalf("another address: %v", err)
	}
	// The per-address limit covers every login.
	for range 2 {
		try(t, s, "other", "wrong", "192.0.2.1")
	}
	if _, err := try(t, s, "other", "pw", "192.0.2.1"); ReasonOf(err) != ReasonTooManyFailures {
		t.Fatalf("after 5 failures from one address: %v, want %v", err, ReasonTooManyFailures)
	}
}

// Unknown account and wrong password get the same replies (finding 6).
func TestUnknownLoginLooksLikeWrongPassword(t *testing.T) {
	s := newHardService(t, nil)
	ctx := context.Background()
	cl, _ := srp.DefaultGroup().NewClient("ghost", "pw", rand.Reader)
	p1, err := s.PreAuth(ctx, "ghost", cl.AHex(), "192.0.2.1", "")
	if err != nil {
		t.Fatalf("pre_auth of an unknown login: %v (it must look like a known one)", err)
	}
	p2, err := s.PreAuth(ctx, "ghost", cl.AHex(), "192.0.2.2", "")
	if err != nil {
		t.Fatal(err)
	}
	known, _ := s.PreAuth(ctx, "bench", cl.AHex(), "192.0.2.1", "")
	if p1.Salt != p2.Salt || p1.Salt2 != p2.Salt2 {
		t.Error("the fake salt changes between calls; a real one does not")
	}
	if len(p1.Salt) != len(known.Salt) || len(p1.Salt2) != len(known.Salt2) || len(p1.B) != len(known.B) {
		t.Errorf("fake reply differs in shape: %d/%d/%d vs %d/%d/%d",
			len(p1.Salt), len(p1.Salt2), len(p1.B), len(known.Salt), len(known.Salt2), len(known.B))
	}
	m1, _ := cl.Proof(p2.Salt, p2.Salt2, p2.B)
	_, errUnknown := s.SRPAuth(ctx, "ghost", m1, "192.0.2.2", "")
	_, errWrong := try(t, s, "bench", "wrong", "192.0.2.3")
	if Failure(errUnknown).Auth != Failure(errWrong).Auth {
		t.Errorf("unknown account %q, wrong password %q: told apart", Failure(errUnknown).Auth, Failure(errWrong).Auth)
	}
}

func TestSessionsPerAccountAndLogout(t *testing.T) {
	s := newHardService(t, func(set *Settings) { set.SessionsPerAccount = 3 })
	var cookies []string
	for range 5 {
		rec, err := try(t, s, "bench", "pw", "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		cookies = append(cookies, rec.Cookie)
		time.Sleep(time.Millisecond) // distinct creation times
	}
	live := 0
	for i, c := range cookies {
		_, err := s.Authenticate(c)
		if err == nil {
			live++
		}
		if i < 2 && err == nil {
			t.Errorf("session %d of 5 still live with a limit of 3", i)
		}
	}
	if live != 3 {
		t.Errorf("%d live sessions, want 3", live)
	}
	if err := s.Logout(context.Background(), cookies[4]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(cookies[4]); !errors.Is(err, ErrInvalidCookie) {
		t.Errorf("cookie after logout: %v", err)
	}
	if err := s.Logout(context.Background(), cookies[4]); !errors.Is(err, ErrInvalidCookie) {
		t.Errorf("second logout: %v, want invalid cookie", err)
	}
}

// switch_auth cannot renew a login forever (finding 3).
func TestSwitchAuthKeepsExpiry(t *testing.T) {
	s := newHardService(t, nil)
	rec, err := try(t, s, "bench", "pw", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	first, _ := s.Authenticate(rec.Cookie)
	cookie := rec.Cookie
	for range 3 {
		time.Sleep(5 * time.Millisecond)
		sw, err := s.SwitchAuth(context.Background(), "bench", rec.AccountID, cookie, "192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		cookie = sw.Cookie
	}
	last, err := s.Authenticate(cookie)
	if err != nil {
		t.Fatal(err)
	}
	if last.Expires.After(first.Expires) {
		t.Errorf("switch_auth extended the login from %v to %v", first.Expires, last.Expires)
	}
}

// TestParallelProofsSpendTheFailedProofLimits: proofs sent at once from one
// address, one per login (each with its own handshake), get at most the
// address's burst of password checks. Before, the limits were checked
// before the proof and charged after it, so every proof that arrived
// before the first failure was charged got a check: all 12 here, against
// a burst of 3. Deterministic: each check waits until every proof has
// either reached a check or been answered.
func TestParallelProofsSpendTheFailedProofLimits(t *testing.T) {
	s := newBenchService(t)
	s.SetFailedProofRates(limit.Rate{Burst: 3, Every: time.Hour}, limit.Rate{Burst: 5, Every: time.Hour})
	ctx := context.Background()
	const n = 12
	for i := range n {
		cl, _ := srp.DefaultGroup().NewClient(fmt.Sprintf("ghost%d", i), "pw", rand.Reader)
		if _, err := s.PreAuth(ctx, fmt.Sprintf("ghost%d", i), cl.AHex(), "127.0.0.1", ""); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	settled := 0 // proofs at a check or answered without one
	gate := make(chan struct{})
	settle := func() {
		mu.Lock()
		defer mu.Unlock()
		if settled++; settled == n {
			close(gate)
		}
	}
	s.beforeCheck = func(string) { settle(); <-gate }
	reasons := make(chan Reason, n)
	for i := range n {
		go func() {
			_, err := s.SRPAuth(ctx, fmt.Sprintf("ghost%d", i), strings.Repeat("ab", 32), "127.0.0.1", "")
			if r := ReasonOf(err); r != ReasonWrongPassword {
				settle() // answered before any check
			}
			reasons <- ReasonOf(err)
		}()
	}
	count := map[Reason]int{}
	for range n {
		count[<-reasons]++
	}
	if count[ReasonWrongPassword] != 3 || count[ReasonTooManyFailures] != n-3 {
		t.Fatalf("%d parallel wrong proofs from one address with a burst of 3: %d checked (wrong password), %d refused (too many failures), %v",
			n, count[ReasonWrongPassword], count[ReasonTooManyFailures], count)
	}
}
