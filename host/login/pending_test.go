package login

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/limit"
)

// check verifies the set's bookkeeping against its contents.
func (p *pendingSet) check(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	n, most := 0, 0
	for group, hd := range p.holders {
		if hd.group != group || len(hd.list) == 0 || len(hd.list) > p.perAddr {
			t.Fatalf("holder %q: %d handshakes (budget %d)", group, len(hd.list), p.perAddr)
		}
		if _, ok := p.byCount[len(hd.list)][hd]; !ok {
			t.Fatalf("holder %q with %d handshakes is not counted so", group, len(hd.list))
		}
		for i, h := range hd.list {
			if p.byKey[h.key] != h || h.holder != hd || i > 0 && h.expires.Before(hd.list[i-1].expires) {
				t.Fatalf("holder %q: handshake %d misplaced", group, i)
			}
		}
		n += len(hd.list)
		most = max(most, len(hd.list))
	}
	counted := 0
	for _, set := range p.byCount {
		counted += len(set)
	}
	if n != p.total || n != len(p.byKey) || counted != len(p.holders) || most != p.most || p.total > p.max {
		t.Fatalf("total %d, byKey %d, counted holders %d of %d, most %d (kept %d), max %d: want %d handshakes",
			p.total, len(p.byKey), counted, len(p.holders), most, p.most, p.max, n)
	}
}

// A random mix of pre_auths, proofs and time keeps the bookkeeping
// right, and never drops the handshake of an address holding one while
// another holds more.
func TestPendingSetBookkeeping(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := newPendingSet(40, 5, time.Minute)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 20_000 {
		login := fmt.Sprintf("l%d", rng.IntN(12))
		addr := fmt.Sprintf("192.0.2.%d", rng.IntN(30))
		if rng.IntN(3) == 0 {
			addr = fmt.Sprintf("2001:db8:%x::%x", rng.IntN(3), rng.IntN(1000))
		}
		switch rng.IntN(10) {
		case 0:
			now = now.Add(time.Duration(rng.IntN(20)) * time.Second)
		case 1, 2:
			p.take(login, addr, now)
		case 3: // handed over by a node that stopped: any part of a lifetime left
			p.adopt(login, &handshake{addr: addr}, now, now.Add(time.Duration(1+rng.IntN(60))*time.Second))
		default:
			before, most := map[*handshake]int{}, p.most
			for _, h := range p.byKey {
				before[h] = len(h.holder.list)
			}
			p.put(login, &handshake{addr: addr}, now)
			for h, held := range before {
				gone := p.byKey[h.key] != h
				if gone && now.Before(h.expires) && h.holder.group != limit.AddrKey(addr) && held < most {
					t.Fatalf("a pre_auth from %s dropped a live handshake of %s, which held %d (the most: %d)",
						addr, h.holder.group, held, most)
				}
			}
		}
		p.check(t)
	}
}
