package login

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// SweepSessions deletes expired sessions, each through its account's actor,
// and returns how many it deleted. The server runs it at start and then
// periodically, so that logging in again and again cannot grow storage
// beyond one cookie lifetime of sessions. In cluster mode it deletes only
// those of the accounts homed on this node (actors.System.AtHome): the
// nodes' sweeps together cover every account once.
func (s *Service) SweepSessions(ctx context.Context) (int, error) {
	now := s.now()
	expired := map[storage.AccountID][]*storage.Session{}
	stored := 0
	err := s.db.EachSession(func(sess *storage.Session) error {
		stored++
		if !sess.Valid(now) {
			expired[sess.AccountID] = append(expired[sess.AccountID], sess)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	// The gauge restarts from what is stored (less what this sweep ends,
	// below); sessions issued or ended while the scan ran may be counted
	// twice or not at all until the next sweep.
	s.live.Store(int64(stored))
	// One account's failure (a busy actor) does not stop the sweep; the
	// next sweep retries it. A deleted account's sessions went with it
	// (storage.AccountRecords), so every session has an actor to delete it.
	n := 0
	var errs []error
	for id, list := range expired {
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		if !s.sys.AtHome(id) {
			// Cluster mode: every node sweeps, each the accounts it is
			// the home of (an account whose home moves meanwhile waits
			// for the next sweep), rather than every node every account
			// through transient activations that fence the homes.
			continue
		}
		ended, err := s.sys.Apply(ctx, id, &expireSessions{sessions: list})
		if err != nil {
			errs = append(errs, fmt.Errorf("account %d: %w", id, err))
			continue
		}
		n += ended.(int)
		s.live.Add(-int64(ended.(int)))
	}
	return n, errors.Join(errs...)
}

// expireSessions deletes sessions of one account, those still stored (a
// list read outside the actor may name one ended meanwhile), and replies
// how many it deleted.
type expireSessions struct{ sessions []*storage.Session }

func (c *expireSessions) Apply(tx *actors.Tx) (any, error) {
	stored, err := tx.Sessions()
	if err != nil {
		return nil, err
	}
	n := 0
	for _, sess := range c.sessions {
		key := sess.Key()
		if !slices.ContainsFunc(stored, func(s *storage.Session) bool { return s.Hash == key }) {
			continue
		}
		if err := tx.DeleteSession(sess); err != nil {
			return nil, err
		}
		n++
	}
	return n, nil
}
