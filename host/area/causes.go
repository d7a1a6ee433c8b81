package area

import (
	"errors"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// Cause is a reason a request fails that every area shares: the session,
// the plugin, storage. An area's reply for a failure starts from CauseOf
// and adds its own reasons (a rule of the area: insufficient funds, a
// claim made twice) where CauseOf says CauseOther.
type Cause int

// The generic causes.
const (
	CauseOther          Cause = iota // none of these: the area's own reason
	CauseBadCookie                   // no live session for the cookie: log in again
	CauseBadRequest                  // the request could not be read
	CausePluginDown                  // the area's plugin is down, failed, or decided something its contract refuses
	CauseOutcomeUnknown              // the change may have been written: check before retrying
	CauseStorageFull                 // writes are refused until disk space (or the database) returns; nothing was written
	CauseRetry                       // the account moved or another write won; nothing was written
	CauseInternal                    // anything else the server could not do; nothing was written
)

// ErrBadRequest marks a request that could not be read (wrap it).
var ErrBadRequest = errors.New("bad request")

// CauseOf classifies err. Outcome unknown comes first: a failure that may
// hide a write is never reported as a plain failure.
func CauseOf(err error) Cause {
	switch {
	case err == nil:
		return CauseOther
	case failure.Uncertain(err):
		return CauseOutcomeUnknown
	case errors.Is(err, login.ErrInvalidCookie), errors.Is(err, actors.ErrNoAccount):
		// (ErrNoAccount: a live session of an account deleted since.)
		return CauseBadCookie
	case errors.Is(err, ErrBadRequest):
		return CauseBadRequest
	case errors.Is(err, sdk.ErrUnavailable), errors.Is(err, sdk.ErrPluginFailed),
		errors.Is(err, sdk.ErrInvalidDecision), errors.Is(err, sdk.ErrInvalidFacts):
		return CausePluginDown
	case errors.Is(err, storage.ErrDiskFull), errors.Is(err, storage.ErrEngineFailed), errors.Is(err, storage.ErrUnavailable):
		return CauseStorageFull
	case errors.Is(err, storage.ErrConflict), errors.Is(err, actors.ErrStopped), errors.Is(err, actors.ErrExpired),
		errors.Is(err, actors.ErrMoved): // cluster mode: a fenced activation wrote nothing
		return CauseRetry
	}
	return CauseInternal
}

// Message is the cause's sentence for a player; CauseOther has none (the
// area words its own reasons).
func (c Cause) Message() string {
	switch c {
	case CauseBadCookie:
		return "your session has ended; log in again"
	case CauseBadRequest:
		return "the request could not be read"
	case CausePluginDown:
		return "this feature is unavailable right now; try again later"
	case CauseOutcomeUnknown:
		return "the server did not learn whether this was done; check before trying again"
	case CauseStorageFull:
		return "the server cannot save changes right now; nothing was changed, try again later"
	case CauseRetry:
		return "the server was busy; nothing was changed, try again"
	case CauseInternal:
		return "the server could not do this; nothing was changed"
	}
	return ""
}

// ServerSide reports whether the cause is the server's fault, not the
// player's (for the log level of a failure).
func (c Cause) ServerSide() bool {
	return c == CausePluginDown || c == CauseOutcomeUnknown || c == CauseStorageFull || c == CauseInternal
}
