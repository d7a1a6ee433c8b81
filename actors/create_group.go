package actors

import (
	"fmt"
	"sync"
	"time"

	"github.com/honmaster/masterserver/storage"
)

// createGroup gathers the CreateAccount calls that arrive while the
// registry is busy with a creation, so that they share its next synced
// commit (group commit): with one commit per account, registrations were
// bounded by the disk's syncs per second, and under load some waited past
// their deadline. A call that finds no creation under way is sent at once,
// alone, so an idle server adds no wait. A leader goroutine, started by
// the call that found none under way, sends the gathered calls to the
// registry as one createAccounts (up to MaxCreateMany) until none is
// left.
type createGroup struct {
	mu      sync.Mutex
	pending []*createCall
	leading bool // a leader goroutine is sending the pending calls
}

// createCall is one CreateAccount waiting for its group's commit.
type createCall struct {
	req      *NewAccount
	deadline time.Time
	done     chan Created // buffered: the leader never waits for the caller
}

// createGrouped queues req for the next group commit and waits for its
// outcome. The leader's request to the registry is bounded by the latest
// deadline of its group plus commitGrace, so the wait ends.
func (s *System) createGrouped(req *NewAccount, deadline time.Time) (*storage.Account, error) {
	c := &createCall{req: req, deadline: deadline, done: make(chan Created, 1)}
	g := &s.creates
	g.mu.Lock()
	g.pending = append(g.pending, c)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	if lead {
		go s.leadCreates()
	}
	r := <-c.done
	return r.Account, r.Err
}

// leadCreates sends the pending calls to the registry, a group at a time,
// until none is left.
func (s *System) leadCreates() {
	g := &s.creates
	for {
		g.mu.Lock()
		n := min(len(g.pending), MaxCreateMany)
		if n == 0 {
			g.leading = false
			g.mu.Unlock()
			return
		}
		group := g.pending[:n:n]
		g.pending = g.pending[n:]
		if len(g.pending) == 0 {
			g.pending = nil // let the gathered calls go
		}
		g.mu.Unlock()
		s.commitGroup(group)
	}
}

// commitGroup creates the accounts of group in one registry request and
// hands each call its outcome. Each call keeps its own deadline: the
// registry refuses (ErrExpired) those it gets to after theirs.
func (s *System) commitGroup(group []*createCall) {
	reqs := make([]*NewAccount, len(group))
	deadlines := make([]time.Time, len(group))
	var latest time.Time
	for i, c := range group {
		reqs[i], deadlines[i] = c.req, c.deadline
		if c.deadline.After(latest) {
			latest = c.deadline
		}
	}
	res, err := s.askUntil(s.registry, &envelope{Msg: &createAccounts{Reqs: reqs, Deadlines: deadlines, Deadline: latest}}, latest.Add(commitGrace))
	if err == nil {
		if m, ok := res.(*createdMany); ok && len(m.Results) == len(group) {
			for i, c := range group {
				c.done <- m.Results[i]
			}
			return
		}
		err = fmt.Errorf("%w: %T", ErrUnexpectedReply, res)
	}
	for _, c := range group {
		c.done <- Created{Err: err}
	}
}
