package actors

import (
	"time"

	"github.com/honmaster/masterserver/storage"
)

// envelope carries one request to an actor: through the account's shard
// to the account's actor, or to the registry. reply is where
// its one answer goes: System.ask waits on it. (A channel rather than
// protoactor's futures: a future is a process registered in, looked up in
// and removed from the actor system's registry, about 6% of a drop's server
// CPU.)
type envelope struct {
	ID    storage.AccountID // the account, for requests through a shard
	Msg   any
	Sent  time.Time // for the mailbox-wait metric
	reply chan any  // capacity 1, set by System.call
}

// IgnoreDeadLetterLogging keeps protoactor from logging an envelope it
// could not deliver: the asker is answered ErrStopped instead (see
// System.answerDeadLetters), and the envelope's message may hold an area's
// change.
func (*envelope) IgnoreDeadLetterLogging() {}

// respond delivers the request's answer. Only the first answer counts (a
// second would be a bug; it is dropped rather than block the actor).
func (e *envelope) respond(v any) {
	select {
	case e.reply <- v:
	default:
	}
}

// getAccount asks an account actor for a snapshot of its record.
type getAccount struct{}

// readAccount runs Fn on the account's live state inside its actor.
type readAccount struct{ Fn func(*storage.Account) any }

// applyChange asks an account actor to apply one Change, unless Deadline
// has passed when the actor gets to it.
type applyChange struct {
	Change   Change
	Deadline time.Time
	// Cancel, when closed before the actor gets to the change, refuses it
	// as expired (nothing written): the request's context ended, as when a
	// forwarding node gave up on it (nil: never).
	Cancel <-chan struct{}
}

// createAccount asks the registry to create an account, unless Deadline
// has passed when the registry gets to it.
type createAccount struct {
	Req      *NewAccount
	Deadline time.Time
}

// createAccounts asks the registry to create many accounts in one commit
// (System.CreateAccounts, and the group commit of CreateAccount), unless
// Deadline has passed when the registry gets to it. Deadlines, when set,
// holds each request's own: one past it is refused, the others created.
type createAccounts struct {
	Reqs      []*NewAccount
	Deadlines []time.Time
	Deadline  time.Time
}

// ensureMeta asks the registry for a metadata value, storing Value first
// when none exists.
type ensureMeta struct {
	Name  string
	Value []byte
}

// updateGlobal asks the registry to run Fn and commit its global writes,
// unless Deadline has passed when the registry gets to it.
type updateGlobal struct {
	Fn       func(*GlobalTx) (any, error)
	Deadline time.Time
}

// metaValue is the reply to ensureMeta.
type metaValue struct{ Value []byte }

// snapshot is the reply to getAccount: a deep copy of the record.
type snapshot struct{ Account *storage.Account }

// changed is the reply to applyChange: the Change's own reply.
type changed struct{ Reply any }

// created is the reply to createAccount.
type created struct{ Account *storage.Account }

// createdMany is the reply to createAccounts: one result per request.
type createdMany struct{ Results []Created }

// failure is the reply of any request that could not be served.
type failure struct{ Err error }
