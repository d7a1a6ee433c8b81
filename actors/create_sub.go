package actors

import (
	"context"
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/storage"
)

// createSub creates the sub-account req describes as a change of its
// parent's actor: the new account's entry in the parent's index is a
// record of the parent, so it is written by the parent's single writer,
// fenced by the parent's owner epoch in cluster mode. A deletion of the
// parent (its own change, which refuses a parent with sub-accounts) is
// then either before the creation, which finds no parent, or after it,
// which finds the sub-account: never an orphan. A creation that lost its
// id to another creation tries again, as the registry's do.
func (s *System) createSub(ctx context.Context, req *NewAccount) (*storage.Account, error) {
	pid, err := s.db.LoginID(req.ParentLogin)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrBadParent, req.ParentLogin, err)
	}
	for try := 1; ; try++ {
		res, err := s.Apply(ctx, pid, &createSubChange{req: req})
		var ce *storage.ConflictError
		switch {
		case err == nil:
			return res.(*storage.Account), nil
		case errors.Is(err, ErrNoAccount):
			return nil, fmt.Errorf("%w: %q: %w", ErrBadParent, req.ParentLogin, err)
		case !errors.As(err, &ce):
			return nil, err
		}
		if again, err := createConflict(req, ce, err, try); !again {
			return nil, err
		}
	}
}

// createSubChange creates a sub-account of the account it runs on.
type createSubChange struct{ req *NewAccount }

func (c *createSubChange) Apply(tx *Tx) (any, error) {
	parent := tx.View()
	if parent.SuperID != parent.ID {
		return nil, fmt.Errorf("%w: %q is itself a sub-account", ErrBadParent, c.req.ParentLogin)
	}
	return putCreation(tx.db, tx.batch, c.req, parent.ID)
}
