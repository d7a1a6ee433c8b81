package login

import (
	"github.com/honmaster/masterserver/actors"
)

// forgetAccount is the service's actors.DeleteHook: once a deleted
// account's commit succeeded, its cached pre_auth credentials and its
// indexed sessions go, so that its login, registered again, is checked
// against the new account's verifier.
func (s *Service) forgetAccount(tx *actors.Tx) (func(), error) {
	id, login := tx.ID(), tx.View().Login
	return func() {
		s.verifiers.Remove(login)
		s.sessions.drop(id)
	}, nil
}

// LiveSessions counts the sessions that have not expired (the sessions
// gauge of /metrics): the index of every account's sessions, filled at
// start from storage (SweepSessions) and kept as sessions are issued and
// ended.
func (s *Service) LiveSessions() int {
	now := s.now()
	s.sessions.mu.Lock()
	defer s.sessions.mu.Unlock()
	n := 0
	for _, list := range s.sessions.m {
		for _, sess := range list {
			if sess.Valid(now) {
				n++
			}
		}
	}
	return n
}
