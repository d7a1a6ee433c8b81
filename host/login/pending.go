package login

import (
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

// handshake is the state between one pre_auth and its srpAuth.
type handshake struct {
	mu      sync.Mutex // srp.Server is not safe for concurrent use
	server  *srp.Server
	account storage.AccountID
	fake    bool   // started for a login without an account: no proof matches
	addr    string // client address of the pre_auth
	sysInfo string // pre_auth's SysInfo, for the session hook
	expires time.Time
}

// pendingSet holds the handshakes in progress, several per login. It is not
// account state (nothing durable), so a plain mutex guards it.
//
// The rules, which make a handshake impossible for a third party to cancel:
//   - one address holds at most one handshake per login: its new pre_auth
//     replaces its own older one, never another address's;
//   - a login holds at most perLogin handshakes; a new one past that drops
//     the oldest (to push a player's handshake out, an attacker needs
//     perLogin addresses and must beat the player's round trip);
//   - an address holds at most perAddr handshakes over all logins, and the
//     set at most max: past those, pre_auth is refused (busy), nothing is
//     dropped;
//   - srpAuth tries its proof against every handshake of the login; the one
//     it matches is consumed. A proof that matches none consumes only the
//     handshake its own address started (one guess per pre_auth), never
//     another address's.
type pendingSet struct {
	mu                     sync.Mutex
	byLogin                map[string][]*handshake
	byAddr                 map[string]int
	total                  int
	max, perLogin, perAddr int
	life                   time.Duration
	lastSweep              time.Time
}

// Why put refuses a handshake.
var (
	errPendingFull = errors.New("too many handshakes pending")
	errAddrFull    = errors.New("too many handshakes pending from this address")
)

func newPendingSet(max, perLogin, perAddr int, life time.Duration) *pendingSet {
	return &pendingSet{byLogin: map[string][]*handshake{}, byAddr: map[string]int{},
		max: max, perLogin: perLogin, perAddr: perAddr, life: life}
}

// put adds h (with h.addr set) for login under the rules above.
func (p *pendingSet) put(login string, h *handshake, now time.Time) error {
	h.expires = now.Add(p.life)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropExpired(login, now)
	list := p.byLogin[login]
	for i, old := range list {
		if old.addr == h.addr { // the address's own older handshake
			list = append(slices.Delete(list, i, i+1), h)
			p.byLogin[login] = list
			return nil
		}
	}
	if p.byAddr[h.addr] >= p.perAddr || p.total >= p.max {
		p.sweep(now)
		if p.byAddr[h.addr] >= p.perAddr {
			return errAddrFull
		}
		if p.total >= p.max {
			return errPendingFull
		}
	}
	if len(list) >= p.perLogin {
		p.forget(list[0])
		list = slices.Delete(list, 0, 1)
	}
	p.byLogin[login] = append(list, h)
	p.byAddr[h.addr]++
	p.total++
	return nil
}

// candidates returns the live handshakes of login, newest first.
func (p *pendingSet) candidates(login string, now time.Time) []*handshake {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropExpired(login, now)
	list := slices.Clone(p.byLogin[login])
	slices.Reverse(list)
	return list
}

// remove drops h from login's handshakes if it is still there.
func (p *pendingSet) remove(login string, h *handshake) {
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.byLogin[login]
	if i := slices.Index(list, h); i >= 0 {
		p.forget(h)
		p.setList(login, slices.Delete(list, i, i+1))
	}
}

// byAddress returns login's handshake started from addr, or nil.
func (p *pendingSet) byAddress(login, addr string) *handshake {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.byLogin[login] {
		if h.addr == addr {
			return h
		}
	}
	return nil
}

// forget updates the counts for a handshake leaving the set. p.mu is held.
func (p *pendingSet) forget(h *handshake) {
	p.total--
	if n := p.byAddr[h.addr] - 1; n > 0 {
		p.byAddr[h.addr] = n
	} else {
		delete(p.byAddr, h.addr)
	}
}

func (p *pendingSet) setList(login string, list []*handshake) {
	if len(list) == 0 {
		delete(p.byLogin, login)
	} else {
		p.byLogin[login] = list
	}
}

// dropExpired drops login's expired handshakes. p.mu is held.
func (p *pendingSet) dropExpired(login string, now time.Time) {
	list := p.byLogin[login]
	kept := list[:0]
	for _, h := range list {
		if now.Before(h.expires) {
			kept = append(kept, h)
		} else {
			p.forget(h)
		}
	}
	clear(list[len(kept):])
	p.setList(login, kept)
}

// sweep drops every expired handshake, at most once per tenth of a
// lifetime (a full scan; a client at its cap must not make every request
// pay for one). p.mu is held.
func (p *pendingSet) sweep(now time.Time) {
	if now.Sub(p.lastSweep) < p.life/10 {
		return
	}
	p.lastSweep = now
	for login := range p.byLogin {
		p.dropExpired(login, now)
	}
}

// len returns how many handshakes are pending (tests).
func (p *pendingSet) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total
}
