package actors

import "errors"

var (
	// ErrNoAccount is returned for requests to an account that does not exist.
	ErrNoAccount = errors.New("actors: no such account")
	// ErrTimeout is returned when an account did not answer in time. The
	// change may or may not have been applied: callers must not assume either.
	ErrTimeout = errors.New("actors: ask timeout")
	// ErrStopped is returned once the system is shutting down.
	ErrStopped = errors.New("actors: stopped")
	// ErrLoginTaken is returned when creating an account whose login exists.
	ErrLoginTaken = errors.New("actors: login taken")
	// ErrBadParent is returned when a sub-account's parent is missing or is
	// itself a sub-account.
	ErrBadParent = errors.New("actors: bad parent account")
	// ErrWrongAccount marks a Change that tried to write another account's
	// records.
	ErrWrongAccount = errors.New("actors: write outside the account")
	// ErrPanic is returned when a Change panicked; nothing was written.
	ErrPanic = errors.New("actors: change panicked")
	// ErrUnexpectedReply marks an internal protocol error.
	ErrUnexpectedReply = errors.New("actors: unexpected reply")
)
