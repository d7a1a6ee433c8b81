package login

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"time"

	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/storage"
)

// sessionsToEnd returns the sessions of an account to end as session fresh
// is issued, given the account's sessions (actors.Tx.Sessions: oldest
// first): the expired ones, and the oldest live ones past max (fresh
// counts as one, and is never ended, even if a clock set back made it
// older than some). The account's actor calls it with what it read inside
// the same change, so no other login of the account interleaves, on this
// node or another.
func sessionsToEnd(stored []*storage.Session, fresh *storage.Session, max int, now time.Time) (end []*storage.Session) {
	key := fresh.Key()
	live := 1 // fresh
	for _, old := range stored {
		if old.Hash != key && old.Valid(now) {
			live++
		}
	}
	over := live - max
	for _, old := range stored { // oldest first
		switch {
		case old.Hash == key:
		case !old.Valid(now):
			end = append(end, old)
		case over > 0:
			end = append(end, old)
			over--
		}
	}
	return end
}

// Logout ends the session of cookie. An unknown or expired cookie is an
// invalid cookie, as everywhere else.
func (s *Service) Logout(ctx context.Context, cookie string) error {
	sess, err := s.Authenticate(cookie)
	if err != nil {
		return err
	}
	n, err := s.sys.Apply(ctx, sess.AccountID, &expireSessions{sessions: []*storage.Session{sess}})
	if err != nil {
		return writeFailure(err)
	}
	s.live.Add(-int64(n.(int)))
	return nil
}

// writeFailure classifies a failed session write: refused before anything
// was written (busy, storage refusing writes) is a plain failure; one whose
// outcome is unknown (the commit outlasted the wait) says so, never "failed".
func writeFailure(err error) error {
	if le := (*Error)(nil); errors.As(err, &le) {
		return le // the change's own refusal
	}
	if failure.Uncertain(err) {
		return fail(ReasonOutcomeUnknown, err)
	}
	if errors.Is(err, storage.ErrDiskFull) || errors.Is(err, storage.ErrEngineFailed) || errors.Is(err, storage.ErrUnavailable) {
		return fail(ReasonStorageFull, err)
	}
	return fail(ReasonInternal, err)
}

// fakeVerifier returns pre_auth's values for a login without an account:
// derived from the server secret and the login (HMAC-SHA256 in counter mode),
// so that they are the same on every pre_auth, like a real account's, and
// cost the same to answer. Nobody can tell such a login from a real one
// before srpAuth, and srpAuth fails on it as on a wrong password.
func (s *Service) fakeVerifier(login string) (*verifierEntry, error) {
	salt, salt2, v, err := s.group.FakeVerifier(&hmacStream{key: s.set.Secret, label: "fake-verifier\x00" + login})
	if err != nil {
		return nil, fail(ReasonInternal, err)
	}
	return &verifierEntry{login: login, fake: true, srp: storage.SRPVerifier{Salt: salt, Salt2: salt2, Verifier: v}}, nil
}

// hmacStream is a deterministic byte stream: HMAC-SHA256(key, label ‖ i)
// for i = 0, 1, 2 ...
type hmacStream struct {
	key   []byte
	label string
	i     uint64
	buf   []byte
}

func (h *hmacStream) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(h.buf) == 0 {
			m := hmac.New(sha256.New, h.key)
			m.Write([]byte(h.label))
			m.Write(binary.BigEndian.AppendUint64(nil, h.i))
			h.i++
			h.buf = m.Sum(nil)
		}
		c := copy(p[n:], h.buf)
		h.buf = h.buf[c:]
		n += c
	}
	return n, nil
}
