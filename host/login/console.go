package login

import (
	"context"
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/actors"
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
	idents, _, err := s.identities(acct)
	if err != nil {
		return nil, err
	}
	sess := &storage.Session{Cookie: "(issued at login)", AccountID: id, IP: "(client address)"}
	r := s.record(acct, sess, idents, s.now().UTC())
	return &r.SessionRecord, nil
}

// ResetPassword gives account id the credentials cred (an operator reset
// its password, often because it was stolen) and ends the game sessions
// that could still reach it, and returns how many it ended: the account's
// own, in the same commit as the credentials (through its actor, between
// two of its logins: a login after it checked the new password; a
// handshake begun before it is refused, see openChecked), then those of
// every other account of its main account, each through its own actor,
// since any of them may switch_auth into it with no password. A session
// keeps the password check its chain began with, so a switch made meanwhile
// from a session of the old password's chain, into this account or
// another of the family, is refused (see chainProof): no session of that
// chain outlives the reset. (Sessions stored before the chain was kept,
// and those opened by a node of an earlier version during a rolling
// upgrade, carry none and are not checked, until they expire.) An error after the first commit says the
// password was reset (PartialReset).
func (s *Service) ResetPassword(ctx context.Context, id storage.AccountID, cred storage.SRPVerifier) (int, error) {
	v, err := s.sys.Apply(ctx, id, resetCredentials{cred})
	if err != nil {
		return 0, writeFailure(err)
	}
	r := v.(resetReply)
	s.ForgetVerifier(r.login)
	s.live.Add(-int64(r.ended))
	ended := r.ended
	others, err := s.db.SubAccounts(r.super)
	if err == nil {
		for _, other := range append([]storage.AccountID{r.super}, others...) {
			if other == id {
				continue
			}
			var n int
			if n, err = s.EndSessions(ctx, other); errors.Is(err, actors.ErrNoAccount) {
				err = nil // deleted since the list was read
			} else if err != nil {
				break
			}
			ended += n
		}
	}
	if err != nil {
		return ended, &PartialReset{Ended: ended, Err: err}
	}
	return ended, nil
}

// PartialReset is ResetPassword's error when the password was reset (and
// Ended game sessions ended) but ending the sessions of the main account's
// other accounts failed with Err: the reset happened, and running it
// again ends the rest. It matches ErrPasswordReset.
type PartialReset struct {
	Ended int
	Err   error
}

func (e *PartialReset) Error() string {
	return fmt.Sprintf("the password was reset and %d game sessions ended, but ending those of the other accounts of its main account failed: %v", e.Ended, e.Err)
}

// Is makes a PartialReset match ErrPasswordReset.
func (e *PartialReset) Is(target error) bool { return target == ErrPasswordReset }

// Unwrap is the failure.
func (e *PartialReset) Unwrap() error { return e.Err }

// ErrPasswordReset matches ResetPassword's error when the password was
// reset all the same.
var ErrPasswordReset = errors.New("the password was reset")

// resetCredentials sets the account's credentials and ends its sessions in
// one commit.
type resetCredentials struct{ cred storage.SRPVerifier }

type resetReply struct {
	login string
	super storage.AccountID
	ended int
}

func (c resetCredentials) Apply(tx *actors.Tx) (any, error) {
	a := tx.Account()
	a.SRP = c.cred
	n, err := endAllSessions{}.Apply(tx)
	if err != nil {
		return nil, err
	}
	return resetReply{login: a.Login, super: a.SuperID, ended: n.(int)}, nil
}

// EndSessions ends every stored session of account id in one commit
// through the account's actor, and returns how many it ended.
func (s *Service) EndSessions(ctx context.Context, id storage.AccountID) (int, error) {
	n, err := s.sys.Apply(ctx, id, endAllSessions{})
	if errors.Is(err, actors.ErrNoAccount) {
		return 0, err
	} else if err != nil {
		return 0, writeFailure(err)
	}
	s.live.Add(-int64(n.(int)))
	return n.(int), nil
}

// endAllSessions deletes every stored session of the account, found by
// its list of sessions inside its actor, and replies how many.
type endAllSessions struct{}

func (endAllSessions) Apply(tx *actors.Tx) (any, error) {
	list, err := tx.Sessions()
	if err != nil {
		return nil, err
	}
	for _, sess := range list {
		if err := tx.DeleteSession(sess); err != nil {
			return nil, err
		}
	}
	return len(list), nil
}
