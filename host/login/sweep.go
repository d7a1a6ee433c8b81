package login

import (
	"context"
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// SweepSessions deletes expired sessions, each through its account's actor,
// and returns how many it deleted. The server runs it at start and then
// periodically, so that logging in again and again cannot grow storage
// beyond one cookie lifetime of sessions.
func (s *Service) SweepSessions(ctx context.Context) (int, error) {
	now := s.now()
	expired := map[storage.AccountID][]*storage.Session{}
	err := s.db.EachSession(func(sess *storage.Session) error {
		if !sess.Valid(now) {
			expired[sess.AccountID] = append(expired[sess.AccountID], sess)
		} else {
			s.sessions.seed(sess) // the index of live sessions starts from storage
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	// One account's failure (a busy actor) does not stop the sweep; the
	// next sweep retries it. Accounts are never deleted, so every session
	// has an actor to delete it.
	n := 0
	var errs []error
	for id, list := range expired {
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		if _, err := s.sys.Apply(ctx, id, &expireSessions{sessions: list}); err != nil {
			errs = append(errs, fmt.Errorf("account %d: %w", id, err))
			continue
		}
		n += len(list)
		for _, sess := range list {
			s.sessions.remove(sess)
		}
	}
	return n, errors.Join(errs...)
}

// expireSessions deletes sessions of one account.
type expireSessions struct{ sessions []*storage.Session }

func (c *expireSessions) Apply(tx *actors.Tx) (any, error) {
	for _, sess := range c.sessions {
		if err := tx.DeleteSession(sess); err != nil {
			return nil, err
		}
	}
	return nil, nil
}
