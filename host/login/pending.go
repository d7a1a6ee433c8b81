package login

import (
	"slices"
	"sync"
	"time"

	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

// handshake is the state between one pre_auth and its srpAuth.
type handshake struct {
	server  *srp.Server
	login   string // as pre_auth named it (with addr, the handshake's key)
	account storage.AccountID
	fake    bool   // started for a login without an account: no proof matches
	addr    string // client address of the pre_auth
	sysInfo string // pre_auth's SysInfo, for the session hook
	key     string // login and addr: the handshake's place in pendingSet.byKey
	holder  *holder
	expires time.Time
}

// holder is an address group (see limit.AddrKey) holding handshakes.
type holder struct {
	group string
	list  []*handshake // oldest first (so also in order of expiry)
}

// pendingSet holds the handshakes in progress.
//
// srpAuth carries the login and the proof, nothing else of its pre_auth (not
// A, not B): a proof can only be matched to a handshake by the two modular
// exponentiations of checking it. So a handshake is keyed by its login and
// the client address that started it, and only srpAuth from that address
// can finish it: one proof check per srpAuth, and a third party (who cannot
// send from the player's address over TCP) can neither finish nor consume
// nor replace another address's handshake. A login may have any number of
// handshakes pending, one per address.
//
// Nothing caps the handshakes of one login: any such cap lets enough
// addresses push a player's handshake out (issue 22: nine addresses at 10
// pre_auths a second did, against a cap of 8), while memory is bounded
// anyway by the two budgets below, which cost whoever spends them:
//   - an address group holds at most perAddr handshakes over all logins: its
//     new one drops its own oldest, never another group's;
//   - the set holds at most max: past it, a new handshake drops the oldest
//     handshake of a group holding the most (a flooding address holds
//     perAddr, a player one or two), after dropping expired ones.
//
// A client that sends pre_auth again for the same login from the same
// address replaces its own handshake; a proof for the replaced one is then
// checked against the new one and fails as a wrong password (the client sent
// the proof of a handshake it gave up). A client whose address changes
// between pre_auth and srpAuth (some carrier NATs) is told to log in again.
type pendingSet struct {
	mu      sync.Mutex
	byKey   map[string]*handshake
	holders map[string]*holder
	// byCount[n] holds the holders holding n handshakes; most is the
	// largest n with a holder, so that the set finds whom to drop from in
	// constant time.
	byCount   map[int]map[*holder]struct{}
	most      int
	total     int
	max       int
	perAddr   int
	life      time.Duration
	lastSweep time.Time
}

func newPendingSet(max, perAddr int, life time.Duration) *pendingSet {
	return &pendingSet{byKey: map[string]*handshake{}, holders: map[string]*holder{},
		byCount: map[int]map[*holder]struct{}{}, max: max, perAddr: perAddr, life: life}
}

func pendingKey(login, addr string) string { return login + "\x00" + addr }

// put adds h (with h.addr set) for login under the rules above, expiring a
// lifetime from now. It never refuses: whatever it drops was the caller's
// own address group's, or belongs to a group holding at least as many
// handshakes as any other.
func (p *pendingSet) put(login string, h *handshake, now time.Time) {
	p.add(login, h, now, now.Add(p.life), true)
}

// adopt adds h, handed over by another node, expiring at expires, under
// the same budgets as put; unless a handshake for login from h.addr is
// pending here already: that one is newer (false).
func (p *pendingSet) adopt(login string, h *handshake, now, expires time.Time) bool {
	return p.add(login, h, now, expires, false)
}

func (p *pendingSet) add(login string, h *handshake, now, expires time.Time, replace bool) bool {
	h.expires = expires
	h.login = login
	h.key = pendingKey(login, h.addr)
	group := limit.AddrKey(h.addr)
	p.mu.Lock()
	defer p.mu.Unlock()
	if old := p.byKey[h.key]; old != nil {
		if !replace {
			return false
		}
		p.drop(old)
	}
	hd := p.holders[group]
	if hd == nil {
		hd = &holder{group: group}
		p.holders[group] = hd
	}
	p.dropExpired(hd, now)
	if len(hd.list) >= p.perAddr {
		p.drop(hd.list[0])
	}
	if p.total >= p.max {
		p.sweep(now)
	}
	if p.total >= p.max {
		for top := range p.byCount[p.most] { // any one of them
			p.drop(top.list[0])
			break
		}
	}
	// drop may have deleted hd (it held nothing more); register it again.
	p.holders[group] = hd
	h.holder = hd
	p.count(hd, len(hd.list), len(hd.list)+1)
	// In order of expiry (an adopted handshake may expire before the
	// group's newest).
	i := len(hd.list)
	for i > 0 && hd.list[i-1].expires.After(h.expires) {
		i--
	}
	hd.list = slices.Insert(hd.list, i, h)
	p.byKey[h.key] = h
	p.total++
	return true
}

// takeAll removes every handshake and returns the live ones (a node that
// stops hands them over).
func (p *pendingSet) takeAll(now time.Time) []*handshake {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*handshake, 0, p.total)
	for _, h := range p.byKey {
		if now.Before(h.expires) {
			out = append(out, h)
		}
	}
	p.byKey, p.holders, p.byCount = map[string]*handshake{}, map[string]*holder{}, map[int]map[*holder]struct{}{}
	p.most, p.total = 0, 0
	return out
}

// take removes and returns the live handshake started for login from addr,
// or nil. Taking it is the one proof attempt it allows.
func (p *pendingSet) take(login, addr string, now time.Time) *handshake {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.byKey[pendingKey(login, addr)]
	if h == nil {
		return nil
	}
	p.drop(h)
	if !now.Before(h.expires) {
		return nil
	}
	return h
}

// drop removes h from the set. p.mu is held.
func (p *pendingSet) drop(h *handshake) {
	hd := h.holder
	i := slices.Index(hd.list, h)
	if i < 0 {
		return
	}
	p.count(hd, len(hd.list), len(hd.list)-1)
	hd.list = slices.Delete(hd.list, i, i+1)
	if len(hd.list) == 0 {
		delete(p.holders, hd.group)
	}
	delete(p.byKey, h.key)
	p.total--
}

// count moves hd from byCount[from] to byCount[to]. p.mu is held.
func (p *pendingSet) count(hd *holder, from, to int) {
	if set := p.byCount[from]; set != nil {
		delete(set, hd)
		if len(set) == 0 {
			delete(p.byCount, from)
		}
	}
	if to > 0 {
		set := p.byCount[to]
		if set == nil {
			set = map[*holder]struct{}{}
			p.byCount[to] = set
		}
		set[hd] = struct{}{}
	}
	switch {
	case to > p.most:
		p.most = to
	case from == p.most && p.byCount[from] == nil:
		// Counts move by one, so the next largest is one below (or none).
		p.most = max(from-1, 0)
		for p.most > 0 && p.byCount[p.most] == nil {
			p.most--
		}
	}
}

// dropExpired drops hd's expired handshakes. p.mu is held.
func (p *pendingSet) dropExpired(hd *holder, now time.Time) {
	for len(hd.list) > 0 && !now.Before(hd.list[0].expires) {
		p.drop(hd.list[0])
	}
}

// sweep drops every expired handshake, at most once per tenth of a
// lifetime (a full scan; a full set must not make every pre_auth pay for
// one). p.mu is held.
func (p *pendingSet) sweep(now time.Time) {
	if now.Sub(p.lastSweep) < p.life/10 {
		return
	}
	p.lastSweep = now
	for _, hd := range p.holders {
		p.dropExpired(hd, now)
	}
}

// len returns how many handshakes are pending (tests).
func (p *pendingSet) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total
}
