package actors

import "errors"

var (
	// ErrNoAccount is returned for requests to an account that does not exist.
	ErrNoAccount = errors.New("actors: no such account")
	// ErrTimeout is returned when an account did not answer in time. For a
	// change this happens only when its commit outlasted the commit grace
	// (a stalled disk): the change may or may not have been applied.
	ErrTimeout = errors.New("actors: ask timeout")
	// ErrExpired is returned for a change whose deadline passed before its
	// actor got to it (a backed-up mailbox): nothing was written.
	ErrExpired = errors.New("actors: request expired before it was applied")
	// ErrStopped is returned once the system is shutting down.
	ErrStopped = errors.New("actors: stopped")
	// ErrLoginTaken is returned when creating an account whose login exists.
	ErrLoginTaken = errors.New("actors: login taken")
	// ErrLoginLookalike is returned when creating an account whose login's
	// skeleton (NewAccount.LoginSkeleton) another login holds.
	ErrLoginLookalike = errors.New("actors: a login that looks the same exists")
	// ErrBadParent is returned when a sub-account's parent is missing or is
	// itself a sub-account.
	ErrBadParent = errors.New("actors: bad parent account")
	// ErrWrongAccount marks a Change that tried to write another account's
	// records.
	ErrWrongAccount = errors.New("actors: write outside the account")
	// ErrPanic is returned when a Change panicked; nothing was written.
	ErrPanic = errors.New("actors: change panicked")
	// ErrBadEdit marks a Change that removed owned upgrades (they are only
	// ever appended); nothing was written.
	ErrBadEdit = errors.New("actors: change edited owned upgrades")
	// ErrIDSpace is returned when the account id sequence is exhausted (it
	// would wrap) or points at an existing account.
	ErrIDSpace = errors.New("actors: account id space exhausted")
	// ErrUnexpectedReply marks an internal protocol error.
	ErrUnexpectedReply = errors.New("actors: unexpected reply")
)
