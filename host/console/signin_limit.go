package console

import (
	"slices"
	"sync"
	"time"

	"github.com/honmaster/masterserver/host/limit"
)

// signInLimits decides which sign-ins the console refuses after failures.
//
// Two token buckets, charged by failures only:
//   - per client address, over all logins (SignInPerAddress): one address
//     guessing many operators' passwords, or one password many times;
//   - per login (SignInPerLogin), for addresses that never signed in as
//     that login: guessing one operator's password from many addresses.
//
// An address that has signed in as a login before is trusted for that login:
// it is held to its own per-address bucket only, and its failures do not
// spend the login's. Without that, anyone who can reach the console could
// lock an operator out from everywhere with five wrong passwords, and keep
// them out with one a minute (issue 22, item 7). An operator at an address
// that has never signed in as them is still refused while the login's bucket
// is empty; they sign in from a trusted address, or wait.
//
// The trusted addresses are kept in memory (the most recent
// trustedPerLogin per login, for at most trustedLogins logins, least
// recently used first to go): only right passwords add to them, so an
// attacker cannot grow them, and a restart forgets them.
type signInLimits struct {
	byAddr  *limit.Keyed
	byLogin *limit.Keyed

	mu      sync.Mutex
	trusted map[string]*trustedAddrs // by login
}

// trustedAddrs are the addresses a login signed in from, most recent last.
type trustedAddrs struct {
	addrs []string
	last  time.Time // of the last success, to pick a login to forget
}

const (
	trustedPerLogin = 16
	trustedLogins   = 1024
)

func newSignInLimits(perAddr, perLogin limit.Rate, now func() time.Time) *signInLimits {
	return &signInLimits{byAddr: limit.NewAdjustable(perAddr, 0, now), byLogin: limit.NewAdjustable(perLogin, 0, now),
		trusted: map[string]*trustedAddrs{}}
}

// check reports whether a sign-in as login from addr may be tried; if not,
// wait is how long until it may.
func (l *signInLimits) check(login, addr string) (ok bool, wait time.Duration) {
	okA, waitA := l.byAddr.Check(addr)
	if l.isTrusted(login, addr) {
		return okA, waitA
	}
	okL, waitL := l.byLogin.Check(login)
	return okA && okL, max(waitA, waitL)
}

// failed charges a failed sign-in as login from addr.
func (l *signInLimits) failed(login, addr string) {
	l.byAddr.Charge(addr)
	if !l.isTrusted(login, addr) {
		l.byLogin.Charge(login)
	}
}

// succeeded trusts addr for login from now on.
func (l *signInLimits) succeeded(login, addr string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.trusted[login]
	if t == nil {
		if len(l.trusted) >= trustedLogins {
			l.forgetOldestLocked()
		}
		t = &trustedAddrs{}
		l.trusted[login] = t
	}
	if i := slices.Index(t.addrs, addr); i >= 0 {
		t.addrs = slices.Delete(t.addrs, i, i+1)
	} else if len(t.addrs) >= trustedPerLogin {
		t.addrs = slices.Delete(t.addrs, 0, 1)
	}
	t.addrs = append(t.addrs, addr)
	t.last = now
}

func (l *signInLimits) isTrusted(login, addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.trusted[login]
	return t != nil && slices.Contains(t.addrs, addr)
}

// forgetOldestLocked drops the login whose last success is the oldest.
// l.mu is held.
func (l *signInLimits) forgetOldestLocked() {
	var oldest string
	var at time.Time
	for login, t := range l.trusted {
		if oldest == "" || t.last.Before(at) {
			oldest, at = login, t.last
		}
	}
	delete(l.trusted, oldest)
}
