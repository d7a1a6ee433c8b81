package console

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/storage"
)

// signInLimits decides which sign-ins the console refuses after failures.
//
// Two token buckets, charged by failures only (a sign-in spends its tokens
// before its password is checked and gets them back if it was right:
// reserve, refund):
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
// The trusted addresses (the most recent trustedPerLogin per login, each
// for trustedFor after its last sign-in) are kept in memory, for at most
// trustedLogins logins, least recently used first to go, and in the store
// (trustedKS), so that a restart does not forget them: a restart used to
// hand the lock-out to anyone, six wrong guesses from anywhere then
// locking every address out (issue 36 item 4). Only right passwords add
// to them, so an attacker cannot grow them. A node of a cluster reads the
// addresses at its start: one trusted on another node since counts there
// from the next start.
type signInLimits struct {
	byAddr  *limit.Keyed
	byLogin *limit.Keyed
	now     func() time.Time

	mu      sync.Mutex
	trusted map[string]*trustedAddrs // by login
}

// trustedAddrs are the addresses a login signed in from, most recent last.
type trustedAddrs struct {
	addrs []trustedAddr
	last  time.Time // of the last success, to pick a login to forget
}

// trustedAddr is an address a login signed in from, and when it last did.
type trustedAddr struct {
	addr string
	at   time.Time
}

const (
	trustedPerLogin = 16
	trustedLogins   = 1024
	// trustedFor is how long an address stays trusted for a login after
	// its last sign-in as it.
	trustedFor = 90 * 24 * time.Hour
)

// trustedKS holds the trusted addresses, host-owned records written by
// the global writer as the guides' are: key login, NUL, address (its
// limit.AddrKey); value the time of the last sign-in from it.
var trustedKS = storage.NewGlobalKeyspace("console.signin_trusted", storage.Proto[*timestamppb.Timestamp]())

func newSignInLimits(perAddr, perLogin limit.Rate, now func() time.Time) *signInLimits {
	return &signInLimits{byAddr: limit.NewAdjustable(perAddr, 0, now), byLogin: limit.NewAdjustable(perLogin, 0, now),
		now: now, trusted: map[string]*trustedAddrs{}}
}

// load reads the trusted addresses the store keeps, those not expired.
func (l *signInLimits) load(db *storage.DB) error {
	type rec struct {
		login, addr string
		at          time.Time
	}
	var recs []rec
	err := trustedKS.Each(db, "", func(key string, ts *timestamppb.Timestamp) error {
		login, addr, ok := strings.Cut(key, "\x00")
		if ok && l.now().Sub(ts.AsTime()) < trustedFor {
			recs = append(recs, rec{login, addr, ts.AsTime()})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("console: trusted sign-in addresses: %w", err)
	}
	// The oldest first, so that each login keeps its most recent.
	slices.SortFunc(recs, func(a, b rec) int { return a.at.Compare(b.at) })
	for _, r := range recs {
		l.succeeded(r.login, r.addr, r.at)
	}
	return nil
}

// keepTrusted stores that login signed in from addr now, and drops the
// login's records that expired or are past the most recent
// trustedPerLogin.
func (c *Console) keepTrusted(ctx context.Context, login, addr string) error {
	if c.d.Sys == nil {
		return nil
	}
	at := c.d.Now()
	_, err := c.d.Sys.UpdateGlobal(ctx, func(g *actors.GlobalTx) (any, error) {
		prefix := login + "\x00"
		if err := trustedKS.Put(g, prefix+addr, timestamppb.New(at)); err != nil {
			return nil, err
		}
		var others []trustedAddr
		err := trustedKS.Each(g.DB(), prefix, func(key string, ts *timestamppb.Timestamp) error {
			if a := key[len(prefix):]; a != addr {
				others = append(others, trustedAddr{a, ts.AsTime()})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		slices.SortFunc(others, func(a, b trustedAddr) int { return b.at.Compare(a.at) }) // the most recent first
		for i, o := range others {
			if i >= trustedPerLogin-1 || at.Sub(o.at) >= trustedFor {
				trustedKS.Delete(g, prefix+o.addr)
			}
		}
		return nil, nil
	})
	return err
}

// reservation is what reserve spent for one sign-in: a token of the
// address's bucket, and of the login's unless the address was trusted for
// it.
type reservation struct {
	login, addr string
	byLogin     bool
}

// reserve spends a token of each bucket a sign-in as login from addr is
// held to, before its password is checked, so that sign-ins in flight
// together cannot all pass a limit that none of them has charged yet (a
// check before the password check and a charge after it let 200 parallel
// wrong passwords from one address have 55 checked). If a bucket is empty
// it spends nothing and ok is false; wait is how long until the sign-in
// may be tried. The token stays spent when the password is wrong; refund
// gives it back when it was right, so that only failures count.
func (l *signInLimits) reserve(login, addr string) (res reservation, ok bool, wait time.Duration) {
	res = reservation{login: login, addr: addr, byLogin: !l.isTrusted(login, addr)}
	okA, waitA := l.byAddr.Allow(addr)
	if !res.byLogin {
		return res, okA, waitA
	}
	if !okA {
		_, waitL := l.byLogin.Check(login) // only for the wait: nothing was spent
		return res, false, max(waitA, waitL)
	}
	okL, waitL := l.byLogin.Allow(login)
	if !okL {
		l.byAddr.Refund(addr)
		return res, false, waitL
	}
	return res, true, 0
}

// refund gives back what reserve spent: the sign-in succeeded.
func (l *signInLimits) refund(res reservation) {
	l.byAddr.Refund(res.addr)
	if res.byLogin {
		l.byLogin.Refund(res.login)
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
	if i := slices.IndexFunc(t.addrs, func(a trustedAddr) bool { return a.addr == addr }); i >= 0 {
		t.addrs = slices.Delete(t.addrs, i, i+1)
	} else if len(t.addrs) >= trustedPerLogin {
		t.addrs = slices.Delete(t.addrs, 0, 1)
	}
	t.addrs = append(t.addrs, trustedAddr{addr, now})
	t.last = now
}

func (l *signInLimits) isTrusted(login, addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.trusted[login]
	if t == nil {
		return false
	}
	i := slices.IndexFunc(t.addrs, func(a trustedAddr) bool { return a.addr == addr })
	return i >= 0 && l.now().Sub(t.addrs[i].at) < trustedFor
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
