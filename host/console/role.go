package console

import (
	"context"
	"errors"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// roles is the per-account record of console roles: key "operator", true
// when the account may sign in to the console.
var roles = storage.NewAccountKeyspace("console.role", storage.Proto[*wrapperspb.BoolValue]())

const roleOperator = "operator"

// IsOperator reports whether account id has the operator role.
func IsOperator(db *storage.DB, id storage.AccountID) (bool, error) {
	v, err := roles.Get(db, id, roleOperator)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return v.GetValue(), nil
}

// setRole grants or takes away the operator role, in the account's actor.
type setRole struct{ operator bool }

func (c setRole) Apply(tx *actors.Tx) (any, error) {
	if !c.operator {
		roles.Delete(tx, roleOperator)
		return nil, nil
	}
	return nil, roles.Put(tx, roleOperator, wrapperspb.Bool(true))
}

// SetOperator gives (or, with operator false, takes away) the operator role
// of the account with the given login, through the account's actor.
func SetOperator(ctx context.Context, sys *actors.System, login string, operator bool) error {
	id, err := sys.DB().LoginID(login)
	if err != nil {
		return err
	}
	_, err = sys.Apply(ctx, id, setRole{operator})
	return err
}
