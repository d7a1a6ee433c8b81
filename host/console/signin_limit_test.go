package console_test

import (
	"net"
	"net/http"
	"net/http/cookiejar"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/console"
	"github.com/honmaster/masterserver/host/limit"
)

// clientFrom is a console client whose connections come from the loopback
// address ip (127.0.0.0/8 is all loopback on Linux): separate addresses
// without leaving the machine.
func clientFrom(t *testing.T, ip string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 30 * time.Second}
	return &http.Client{Jar: jar, Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
}

// Issue 22, item 7: wrong passwords for an operator's login from one address
// do not lock the operator out from an address they signed in from before;
// they still spend that address's own budget, and the login's budget for
// addresses that never signed in as it. Before the fix, five failures from
// anywhere locked the login out everywhere.
func TestSignInFailuresDoNotLockOutOtherAddresses(t *testing.T) {
	e := newEnv(t, console.Deps{SignInPerLogin: limit.Rate{Burst: 5, Every: time.Hour},
		SignInPerAddress: limit.Rate{Burst: 10, Every: time.Hour}})
	operator, attacker, stranger := clientFrom(t, "127.0.0.2"), clientFrom(t, "127.0.0.3"), clientFrom(t, "127.0.0.4")
	if status, page := e.signIn(t, operator, "admin", "admin-pw"); status != http.StatusOK {
		t.Fatalf("first sign-in: %d\n%s", status, page)
	}
	for i := range 5 {
		if status, _ := e.signIn(t, attacker, "admin", "wrong"); status != http.StatusUnauthorized {
			t.Fatalf("attacker's guess %d: %d, want 401", i, status)
		}
	}
	if status, _ := e.signIn(t, attacker, "admin", "wrong"); status != http.StatusTooManyRequests {
		t.Errorf("the attacker past the login's budget: %d, want 429", status)
	}
	if status, page := e.signIn(t, operator, "admin", "admin-pw"); status != http.StatusOK {
		t.Fatalf("the operator, from the address they signed in from, after 5 failures elsewhere: %d\n%s", status, page)
	}
	// The login's budget still holds for addresses that never signed in
	// as it, even with the right password.
	if status, _ := e.signIn(t, stranger, "admin", "admin-pw"); status != http.StatusTooManyRequests {
		t.Errorf("a new address while the login's budget is spent: %d, want 429", status)
	}
	// A trusted address's own failures spend its own budget only.
	for range 10 {
		e.signIn(t, operator, "admin", "typo")
	}
	if status, _ := e.signIn(t, operator, "admin", "admin-pw"); status != http.StatusTooManyRequests {
		t.Errorf("the operator's address past its own budget: %d, want 429", status)
	}
}
