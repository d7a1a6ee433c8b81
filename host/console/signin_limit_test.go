package console_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/console"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/metrics"
	"github.com/honmaster/masterserver/host/srp"
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

// restarted is e's console as a restart over the same store makes it: a
// new Console (nothing kept in memory) on e's actors, at the time now.
func (e *env) restarted(t *testing.T, d console.Deps, now func() time.Time) *env {
	t.Helper()
	d.Sys, d.Group, d.Accounts, d.Login, d.Metrics, d.Now = e.sys, srp.DefaultGroup(), e.acc, e.login, metrics.New(), now
	c, err := console.New(d)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	c.Mount(mux.Handle)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	r := *e
	r.srv, r.console = srv, c
	return &r
}

// Issue 36 item 4: the addresses an operator signed in from are kept across
// a restart (in the store, for trustedFor after the last sign-in): six
// wrong guesses from anywhere after a restart do not lock the operator out
// of the address they signed in from. Before, a restart forgot them.
func TestSignInTrustSurvivesRestart(t *testing.T) {
	limits := console.Deps{SignInPerLogin: limit.Rate{Burst: 5, Every: time.Hour}, SignInPerAddress: limit.Rate{Burst: 10, Every: time.Hour}}
	e := newEnv(t, limits)
	operator, attacker := clientFrom(t, "127.0.0.2"), clientFrom(t, "127.0.0.3")
	if status, page := e.signIn(t, operator, "admin", "admin-pw"); status != http.StatusOK {
		t.Fatalf("first sign-in: %d\n%s", status, page)
	}
	guess := func(e *env) {
		t.Helper()
		for range 6 {
			e.signIn(t, clientFrom(t, "127.0.0.3"), "admin", "wrong")
		}
		if status, _ := e.signIn(t, attacker, "admin", "wrong"); status != http.StatusTooManyRequests {
			t.Fatalf("the attacker past the login's budget: %d, want 429", status)
		}
	}

	r := e.restarted(t, limits, time.Now)
	guess(r)
	if status, page := r.signIn(t, clientFrom(t, "127.0.0.2"), "admin", "admin-pw"); status != http.StatusOK {
		t.Fatalf("the operator, from the address they signed in from before the restart, after the attacker's guesses: %d\n%s", status, page)
	}

	// An address not signed in from for 90 days is trusted no more.
	later := time.Now().Add(91 * 24 * time.Hour)
	r = e.restarted(t, limits, func() time.Time { return later })
	guess(r)
	if status, _ := r.signIn(t, clientFrom(t, "127.0.0.2"), "admin", "admin-pw"); status != http.StatusTooManyRequests {
		t.Errorf("the operator's address 91 days after its last sign-in, the login's budget spent: %d, want 429", status)
	}
}

// Parallel wrong sign-ins from one address get at most the limits' number
// of password checks (401s); the rest are refused (429) before any. Before,
// the limits were only checked before the slow password check and charged
// after it, so all the sign-ins in flight at once passed: 200 parallel
// wrong passwords from one address got 55 password checks on one login
// against limits of 5 per login and 10 per address.
//
// No timing: every password check waits at a gate until each of the n
// sign-ins has either reached a password check or been answered, so all n
// are in flight together however fast the machine checks passwords.
func TestSignInLimitsHoldUnderParallelAttempts(t *testing.T) {
	const n = 40
	for _, tt := range []struct {
		name  string
		login func(i int) string // the login of attempt i
		want  int                // password checks at most
	}{
		{"one login", func(int) string { return "admin" }, 5},                     // SignInPerLogin
		{"many logins", func(i int) string { return fmt.Sprint("ghost", i) }, 10}, // SignInPerAddress
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, console.Deps{SignInPerLogin: limit.Rate{Burst: 5, Every: time.Hour},
				SignInPerAddress: limit.Rate{Burst: 10, Every: time.Hour}})
			events := make(chan struct{}, 2*n) // a sign-in reached the password check, or was answered
			release := make(chan struct{})
			e.console.SetBeforePasswordCheck(func() {
				events <- struct{}{}
				<-release
			})
			go func() {
				for range n {
					<-events
				}
				close(release)
			}()
			// Each attempt gets its form token first, then all are sent at once.
			type attempt struct {
				c    *http.Client
				form url.Values
			}
			attempts := make([]attempt, n)
			for i := range attempts {
				c := clientFrom(t, "127.0.0.5")
				_, page := get(t, c, e.srv.URL+"/console/signin")
				attempts[i] = attempt{c, url.Values{"csrf": {csrfOf(t, page)}, "login": {tt.login(i)}, "password": {"wrong"}}}
			}
			statuses := make([]int, n)
			var wg sync.WaitGroup
			for i, a := range attempts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { events <- struct{}{} }()
					resp, err := a.c.PostForm(e.srv.URL+"/console/signin", a.form)
					if err != nil {
						t.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					statuses[i] = resp.StatusCode
				}()
			}
			wg.Wait()
			counts := map[int]int{}
			for _, s := range statuses {
				counts[s]++
			}
			if counts[http.StatusUnauthorized] > tt.want || counts[http.StatusUnauthorized]+counts[http.StatusTooManyRequests] != n {
				t.Errorf("%d parallel wrong sign-ins: %v (status: count); want at most %d password checks (401), the rest 429",
					n, counts, tt.want)
			}
		})
	}
}

// A login longer than any account's (login.MaxLoginLength characters) is
// refused before any limiter or password work, and not echoed. Before, a
// 60,000-byte login got 401 and became a key of the per-login limiter
// (which keeps up to 100,000).
func TestSignInRefusesOverlongLogin(t *testing.T) {
	e := newEnv(t, console.Deps{})
	c := client(t)
	long := strings.Repeat("a", 60_000)
	status, page := e.signIn(t, c, long, "wrong")
	if status != http.StatusBadRequest || !strings.Contains(page, fmt.Sprintf("a login is at most %d characters", login.MaxLoginLength)) {
		t.Errorf("a 60,000-byte login: %d, want 400 and the sentence:\n%.2000s", status, page)
	}
	if strings.Contains(page, strings.Repeat("a", 100)) {
		t.Error("the page echoes the overlong login")
	}
	if a, l := e.console.SignInKeys(); a != 0 || l != 0 {
		t.Errorf("limiter keys after an overlong login: %d per address, %d per login; want none", a, l)
	}
	// The longest logins there can be (characters, not bytes) are checked.
	for _, l := range []string{strings.Repeat("a", login.MaxLoginLength), strings.Repeat("é", login.MaxLoginLength)} {
		if status, _ := e.signIn(t, c, l, "wrong"); status != http.StatusUnauthorized {
			t.Errorf("a login of %d characters: %d, want 401", login.MaxLoginLength, status)
		}
	}
}
