package login

import (
	"errors"
	"time"

	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

// Handover is a pending handshake (pre_auth done, srpAuth not yet) leaving
// this node: in cluster mode, a node that stops gracefully hands its
// pending handshakes to their accounts' new home nodes (ReleasePending
// there, AdoptPending here), so that a login whose node stops between
// pre_auth and srpAuth still succeeds. It holds secrets (the SRP state):
// never log it; it travels only over the cluster port (mutual TLS).
type Handover struct {
	Login   string // as pre_auth named it
	Addr    string // the client's address group (limit.AddrKey)
	Account storage.AccountID
	Fake    bool // a handshake for a login without an account
	SysInfo string
	// Remaining is what was left of its lifetime when it was released.
	Remaining time.Duration
	SRP       srp.ServerState
}

// ReleasePending removes every pending handshake and returns the live ones,
// each exported (srp.Server.Export): none can be finished here any more,
// so each stays single-use wherever it is adopted.
func (s *Service) ReleasePending() []Handover {
	now := s.now()
	hs := s.pending.takeAll(now)
	out := make([]Handover, 0, len(hs))
	for _, h := range hs {
		st, err := h.server.Export()
		if err != nil {
			continue
		}
		out = append(out, Handover{Login: h.login, Addr: h.addr, Account: h.account, Fake: h.fake, SysInfo: h.sysInfo,
			Remaining: h.expires.Sub(now), SRP: st})
	}
	return out
}

// errBadHandover is AdoptPending's error for a handshake it cannot take.
var errBadHandover = errors.New("login: malformed handed-over handshake")

// AdoptPending takes over a handshake another node released: srpAuth from
// its address then finishes it here, once, until what was left of its
// lifetime runs out (never longer than this node's pre_auth lifetime). It
// counts against this node's pending budgets as a pre_auth here would. A
// handshake this node already holds for the same login and address group
// is newer (the client sent pre_auth again) and stays; an expired one is
// dropped.
func (s *Service) AdoptPending(h Handover) error {
	if checkLogin(h.Login) != nil || h.Addr == "" {
		return errBadHandover
	}
	life := min(h.Remaining, s.set.PreAuthLifetime)
	if life <= 0 {
		return nil
	}
	server, err := s.group.ResumeServer(h.SRP)
	if err != nil {
		return errors.Join(errBadHandover, err)
	}
	now := s.now()
	s.pending.adopt(h.Login, &handshake{server: server, account: h.Account, fake: h.Fake, addr: h.Addr, sysInfo: h.SysInfo},
		now, now.Add(life))
	return nil
}
