package actors

import (
	"time"
)

// SetMailboxObserver makes the system report, for every request to an
// account, how long it waited between being sent and its account actor
// starting on it (the shard's lock, any hold while the actor was being
// passivated, and the account's mailbox). nil stops it. f runs inside the
// actor: it must be quick.
func (s *System) SetMailboxObserver(f func(time.Duration)) {
	if f == nil {
		s.onMailbox.Store(nil)
		return
	}
	s.onMailbox.Store(&f)
}

// Passivations counts account actors stopped for being idle.
func (s *System) Passivations() int64 { return s.passivations.Load() }

// observeMailbox reports the mailbox wait of a request an account actor is
// about to serve. The account actor calls it first thing (a receiver
// middleware would do the same, but makes protoactor allocate its context
// extras for every actor: memory that each live account would pay).
func (s *System) observeMailbox(env *envelope) {
	if f := s.onMailbox.Load(); f != nil && !env.Sent.IsZero() {
		(*f)(time.Since(env.Sent))
	}
}
