package server

import (
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/wire"
)

// publicMessage words err for the player whose request failed. Errors of
// the packages below carry their package's name ("wire: field ..."), right
// in logs and wrong in a reply: they are mapped here with errors.Is/As on
// the packages' sentinels, and anything not known is an internal error
// (logged by the caller, never shown).
func publicMessage(err error) string {
	var fe *wire.FieldError
	switch {
	case errors.As(err, &fe) && errors.Is(fe.Err, wire.ErrMissingField):
		return fmt.Sprintf("missing form field %q", fe.Field)
	case errors.As(err, &fe):
		return fmt.Sprintf("form field %q is not valid: %s", fe.Field, fe.Problem)
	case errors.Is(err, wire.ErrBodyTooLarge):
		return "the request is too large"
	case errors.Is(err, wire.ErrMalformed), errors.Is(err, errBadRequest):
		return "the request could not be read"
	case errors.Is(err, actors.ErrLoginTaken):
		return "this login is already taken"
	case errors.Is(err, errRegisterOff):
		return errRegisterOff.Error()
	case failure.Uncertain(err):
		// A write may have happened: "try again" could apply it twice.
		return "the server did not confirm in time; your request may or may not have been applied: check before trying again"
	case errors.Is(err, actors.ErrExpired), errors.Is(err, actors.ErrStopped),
		errors.Is(err, actors.ErrMoved): // cluster mode: nothing written, the next try is served afresh
		return "the server is busy; try again"
	}
	if msg := accounts.RuleMessage(err); msg != "" {
		return msg
	}
	return "internal error"
}
