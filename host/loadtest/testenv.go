package loadtest

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/honmaster/masterserver/host/client"
)

// NewTestEnv is a run's Env against the servers at targets (each request
// to one at random), with a test account for each login, logged in with
// session cookie cookie and numbered from 1: for an area's tests of its
// operations and checks against a fake server on loopback. A run makes
// its own Env (Run).
func NewTestEnv(targets []string, cookie string, logins ...string) (*Env, []*Account, error) {
	var us []*url.URL
	for _, t := range targets {
		u, err := url.Parse(t)
		if err != nil {
			return nil, nil, fmt.Errorf("target %q: %w", t, err)
		}
		us = append(us, u)
	}
	if len(us) == 0 {
		return nil, nil, fmt.Errorf("no target")
	}
	c, _ := newClient(us, 1)
	e := &Env{c: c, run: "abc", logins: logins}
	for i, l := range logins {
		id := strconv.Itoa(i + 1)
		a := &Account{login: l, password: "load-abc", id: id, index: i,
			sess: &client.Session{Login: l, AccountID: id, Cookie: cookie}}
		e.accts = append(e.accts, a)
	}
	return e, e.accts, nil
}

// SetCookie gives the account a new session cookie, as a login operation
// does (for tests).
func (a *Account) SetCookie(cookie string) {
	a.sess = &client.Session{Login: a.login, AccountID: a.id, Cookie: cookie}
}
