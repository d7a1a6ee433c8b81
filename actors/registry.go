package actors

import (
	"errors"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/honmaster/masterserver/storage"
)

// registry is the single writer of the login index, the sub-account index and
// the account id sequence. A new account's record is written by the registry
// in the same batch; from then on only the account's own actor writes it.
type registry struct{ sys *System }

func (r *registry) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *createAccount:
		if expired(m.Deadline) {
			ctx.Respond(&failure{Err: ErrExpired})
			return
		}
		acct, err := r.create(m.Req)
		if err != nil {
			ctx.Respond(&failure{Err: err})
			return
		}
		ctx.Respond(&created{Account: acct})
	case *ensureMeta:
		v, err := r.sys.db.Meta(m.Name)
		if errors.Is(err, storage.ErrNotFound) {
			b := r.sys.db.NewBatch()
			b.PutMeta(m.Name, m.Value)
			v, err = m.Value, r.sys.db.Commit(b)
		}
		if err != nil {
			ctx.Respond(&failure{Err: err})
			return
		}
		ctx.Respond(&metaValue{Value: v})
	case *putCatalog:
		if expired(m.Deadline) {
			ctx.Respond(&failure{Err: ErrExpired})
			return
		}
		b := r.sys.db.NewBatch()
		b.PutCatalog(m.Catalog)
		if err := r.sys.db.Commit(b); err != nil {
			ctx.Respond(&failure{Err: err})
			return
		}
		r.sys.catalogVersion.Add(1)
		ctx.Respond(&done{})
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		ctx.Logger().Warn("registry: unexpected message", "type", typeName(m))
	}
}

func (r *registry) create(req *NewAccount) (*storage.Account, error) {
	db := r.sys.db
	if _, err := db.LoginID(req.Login); err == nil {
		return nil, fmt.Errorf("%w: %q", ErrLoginTaken, req.Login)
	} else if !errors.Is(err, storage.ErrNotFound) {
		return nil, err
	}
	id, err := db.NextAccountID()
	if err != nil {
		return nil, err
	}
	acct := req.Account.Clone()
	acct.ID, acct.SuperID, acct.Login = id, id, req.Login
	b := db.NewBatch()
	if req.ParentLogin != "" {
		pid, err := db.LoginID(req.ParentLogin)
		if err != nil {
			b.Discard()
			return nil, fmt.Errorf("%w: %q: %w", ErrBadParent, req.ParentLogin, err)
		}
		parent, err := db.Account(pid)
		if err != nil {
			b.Discard()
			return nil, fmt.Errorf("%w: %q: %w", ErrBadParent, req.ParentLogin, err)
		}
		if parent.SuperID != parent.ID {
			b.Discard()
			return nil, fmt.Errorf("%w: %q is itself a sub-account", ErrBadParent, req.ParentLogin)
		}
		acct.SuperID = parent.ID
		b.PutSubAccount(parent.ID, id)
	}
	b.PutAccount(acct)
	b.PutLogin(acct.Login, id)
	b.SetNextAccountID(id + 1)
	if err := db.Commit(b); err != nil {
		return nil, err
	}
	return acct, nil
}
