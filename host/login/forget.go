package login

import (
	"github.com/honmaster/masterserver/actors"
)

// forgetAccount is the service's actors.DeleteHook: once a deleted
// account's commit succeeded, its cached pre_auth credentials go, so that
// its login, registered again, is checked against the new account's
// verifier, and the sessions it deleted leave the gauge. (Its sessions are
// among the records the deletion removes: storage finds them by the
// account's list of sessions.)
func (s *Service) forgetAccount(tx *actors.Tx) (func(), error) {
	login := tx.View().Login
	sessions, err := tx.Sessions()
	if err != nil {
		return nil, err
	}
	return func() {
		s.verifiers.Remove(login)
		s.live.Add(-int64(len(sessions)))
	}, nil
}

// LiveSessions is the sessions gauge of /metrics: the sessions stored, as
// the last sweep counted them (at start, then hourly), plus those this
// node issued and less those it ended since. Expired sessions count until
// the sweep that deletes them, at most sessionSweepEvery later; in a
// cluster a node learns of the other nodes' logins at its next sweep.
func (s *Service) LiveSessions() int { return int(s.live.Load()) }
