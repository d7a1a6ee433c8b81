package login

import (
	"sync"
	"time"

	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

// handshake is the state between pre_auth and srpAuth for one login.
type handshake struct {
	server  *srp.Server
	account storage.AccountID
	sysInfo string // pre_auth's SysInfo, for the session hook
	expires time.Time
}

// pendingSet holds the handshakes in progress, keyed by login. It is not
// account state (nothing durable), so a plain mutex guards it.
type pendingSet struct {
	mu   sync.Mutex
	m    map[string]handshake
	max  int
	life time.Duration
}

func newPendingSet(max int, life time.Duration) *pendingSet {
	return &pendingSet{m: map[string]handshake{}, max: max, life: life}
}

// put stores h for login, replacing an older one. When the set is full it
// first drops expired entries; if it is still full it refuses.
func (p *pendingSet) put(login string, h handshake, now time.Time) bool {
	h.expires = now.Add(p.life)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, replacing := p.m[login]; !replacing && len(p.m) >= p.max {
		for k, v := range p.m {
			if !now.Before(v.expires) {
				delete(p.m, k)
			}
		}
		if len(p.m) >= p.max {
			return false
		}
	}
	p.m[login] = h
	return true
}

// take removes and returns the handshake of login if it has not expired:
// one proof attempt per pre_auth.
func (p *pendingSet) take(login string, now time.Time) (handshake, bool) {
	p.mu.Lock()
	h, ok := p.m[login]
	delete(p.m, login)
	p.mu.Unlock()
	if !ok || !now.Before(h.expires) {
		return handshake{}, false
	}
	return h, true
}
