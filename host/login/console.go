package login

import (
	"context"

	"github.com/honmaster/masterserver/storage"
)

// ForgetVerifier drops login's cached pre_auth credentials; call it after
// the account's verifier changed (an operator's password reset), so that the
// next pre_auth reads the new one.
func (s *Service) ForgetVerifier(login string) { s.verifiers.Remove(login) }

// Preview builds the session record account id would get at its next login,
// as the client decodes it, for the operator console. It opens no session:
// the cookie, IP and the values derived from them are placeholders.
func (s *Service) Preview(ctx context.Context, id storage.AccountID) (*SessionRecord, error) {
	acct, err := s.sys.Account(ctx, id)
	if err != nil {
		return nil, err
	}
	idents, err := s.identities(acct)
	if err != nil {
		return nil, err
	}
	sess := &storage.Session{Cookie: "(issued at login)", AccountID: id, IP: "(client address)"}
	r := s.record(acct, sess, idents, s.now().UTC())
	return &r.SessionRecord, nil
}

// EndSessions ends every stored session of account id (an operator reset
// its password) in one commit through the account's actor, and returns how
// many it ended. A session issued while it runs survives; it was opened with
// the credentials in force at that moment.
func (s *Service) EndSessions(ctx context.Context, id storage.AccountID) (int, error) {
	var list []*storage.Session
	err := s.db.EachSession(func(sess *storage.Session) error {
		if sess.AccountID == id {
			c := *sess
			list = append(list, &c)
		}
		return nil
	})
	if err != nil || len(list) == 0 {
		return 0, err
	}
	if _, err := s.sys.Apply(ctx, id, &expireSessions{sessions: list}); err != nil {
		return 0, writeFailure(err)
	}
	s.sessions.drop(id)
	return len(list), nil
}
