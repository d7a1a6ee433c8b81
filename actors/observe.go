package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// SetMailboxObserver makes the system report, for every request to an
// account, how long it waited between being sent and its account actor
// starting on it (shard and account mailboxes together). nil stops it.
// f runs inside the actor: it must be quick.
func (s *System) SetMailboxObserver(f func(time.Duration)) {
	if f == nil {
		s.onMailbox.Store(nil)
		return
	}
	s.onMailbox.Store(&f)
}

// Passivations counts account actors stopped for being idle.
func (s *System) Passivations() int64 { return s.passivations.Load() }

// stamped is a request forwarded by a shard with the time it was sent.
type stamped struct {
	Msg  any
	Sent time.Time
}

// unstamp is the receiver middleware of account actors: it reports the
// mailbox wait of a stamped request and hands the actor the request itself.
func (s *System) unstamp(next actor.ReceiverFunc) actor.ReceiverFunc {
	return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
		if st, ok := env.Message.(*stamped); ok {
			if f := s.onMailbox.Load(); f != nil && !st.Sent.IsZero() {
				(*f)(time.Since(st.Sent))
			}
			env = &actor.MessageEnvelope{Header: env.Header, Message: st.Msg, Sender: env.Sender}
		}
		next(c, env)
	}
}
