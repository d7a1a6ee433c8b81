package actors

import (
	"errors"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/honmaster/masterserver/storage"
)

// registry is the single writer of the login index, the sub-account index,
// the account id sequence and every global keyspace. A new account's record is written by the registry
// in the same batch; from then on only the account's own actor writes it.
type registry struct{ sys *System }

func (r *registry) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *envelope:
		m.respond(r.serve(m.Msg))
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		ctx.Logger().Warn("registry: unexpected message", "type", typeName(m))
	}
}

// serve answers one request.
func (r *registry) serve(msg any) any {
	switch m := msg.(type) {
	case *createAccount:
		if expired(m.Deadline) {
			return &failure{Err: ErrExpired}
		}
		acct, err := r.create(m.Req)
		if err != nil {
			return &failure{Err: err}
		}
		return &created{Account: acct}
	case *ensureMeta:
		v, err := r.sys.db.Meta(m.Name)
		if errors.Is(err, storage.ErrNotFound) {
			b := r.sys.db.NewBatch()
			b.PutMeta(m.Name, m.Value)
			v, err = m.Value, r.sys.db.Commit(b)
		}
		if err != nil {
			return &failure{Err: err}
		}
		return &metaValue{Value: v}
	case *updateGlobal:
		if expired(m.Deadline) {
			return &failure{Err: ErrExpired}
		}
		reply, err := r.updateGlobal(m.Fn)
		if err != nil {
			return &failure{Err: err}
		}
		return &changed{Reply: reply}
	default:
		return &failure{Err: fmt.Errorf("%w: a request of type %s", ErrUnexpectedReply, typeName(m))}
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
	// Ids are uint32: once the sequence wraps, a new account would take the
	// id (and records) of an old one. Refuse, and refuse any id whose
	// record exists whatever the reason.
	if id == 0 {
		return nil, fmt.Errorf("%w: the id sequence wrapped", ErrIDSpace)
	}
	if exists, err := db.AccountExists(id); err != nil {
		return nil, err
	} else if exists {
		return nil, fmt.Errorf("%w: account %d exists", ErrIDSpace, id)
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
	b.PutAccount(acct, nil)
	b.PutUpgrades(id, 0, acct.Upgrades)
	b.PutLogin(acct.Login, id)
	b.PutRegistrationAddress(id, req.Address)
	b.SetNextAccountID(id + 1)
	if err := db.Commit(b); err != nil {
		return nil, err
	}
	return acct, nil
}

// GlobalTx is the write access of one global update: it implements
// storage.GlobalWriter, so a global keyspace is written with
// ks.Put(g, key, value). Everything written commits as one synced batch.
type GlobalTx struct {
	w  *storage.GlobalWrites
	db *storage.DB
}

// GlobalWrites implements storage.GlobalWriter.
func (g *GlobalTx) GlobalWrites() *storage.GlobalWrites { return g.w }

// DB gives read access to storage (as of before this update).
func (g *GlobalTx) DB() *storage.DB { return g.db }

var _ storage.GlobalWriter = (*GlobalTx)(nil)

func (r *registry) updateGlobal(fn func(*GlobalTx) (any, error)) (reply any, err error) {
	b := r.sys.db.NewBatch()
	g := &GlobalTx{w: b.ForGlobal(), db: r.sys.db}
	defer func() {
		if p := recover(); p != nil {
			b.Discard()
			reply, err = nil, fmt.Errorf("%w: %v", ErrPanic, p)
		}
	}()
	reply, err = fn(g)
	if err != nil {
		b.Discard()
		return nil, err
	}
	err = r.sys.db.Commit(b)
	if err != nil && !errors.Is(err, storage.ErrCommitUncertain) {
		return nil, err
	}
	// Bumped after an uncertain commit too: the keyspaces may have changed,
	// so what was cached from them is read again.
	for _, name := range g.w.Touched() {
		r.sys.version(name).Add(1)
	}
	if err != nil {
		return nil, err
	}
	return reply, nil
}
