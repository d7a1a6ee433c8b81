package login

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/storage"
)

// sessionIndex remembers the live sessions of each account, oldest first,
// so that a login past the per-account limit can end the oldest ones in the
// same commit. It is filled as sessions are issued and from storage by
// SweepSessions (at start), and lives at the service level so that it
// follows wherever sessions are stored. After a failed commit it may hold a
// session that was never stored; ending that one later is harmless.
//
// Sessions are known by their key (the SHA-256 of the cookie, which is what
// storage keeps, so a session seeded from storage and one just issued
// compare alike) and kept compact: 48 bytes each.
type sessionIndex struct {
	max int
	mu  sync.Mutex
	m   map[storage.AccountID][]indexedSession
}

type indexedSession struct {
	key              [32]byte
	created, expires int64 // Unix nanoseconds
}

// Valid reports whether the session can still be used at time now (as
// storage.Session.Valid).
func (s indexedSession) Valid(now time.Time) bool { return now.UnixNano() < s.expires }

func newSessionIndex(max int) *sessionIndex {
	return &sessionIndex{max: max, m: map[storage.AccountID][]indexedSession{}}
}

func indexed(sess *storage.Session) indexedSession {
	return indexedSession{key: sess.Key(), created: sess.Created.UnixNano(), expires: sess.Expires.UnixNano()}
}

// add records sess and returns the sessions of its account to end: expired
// ones, and the oldest past the limit.
func (x *sessionIndex) add(sess *storage.Session, now time.Time) (end []*storage.Session) {
	n := indexed(sess)
	x.mu.Lock()
	defer x.mu.Unlock()
	list := x.m[sess.AccountID]
	ending := func(old indexedSession) {
		end = append(end, &storage.Session{Hash: old.key, AccountID: sess.AccountID,
			Created: time.Unix(0, old.created).UTC(), Expires: time.Unix(0, old.expires).UTC()})
	}
	kept := list[:0]
	for _, old := range list {
		switch {
		case old.key == n.key:
		case !old.Valid(now):
			ending(old)
		default:
			kept = append(kept, old)
		}
	}
	kept = append(kept, n)
	slices.SortStableFunc(kept, func(a, b indexedSession) int { return cmp.Compare(a.created, b.created) })
	if over := len(kept) - x.max; over > 0 {
		for _, old := range kept[:over] {
			ending(old)
		}
		kept = slices.Delete(kept, 0, over)
	}
	x.m[sess.AccountID] = slices.Clip(kept)
	return end
}

// seed records a stored session without ending any (SweepSessions); a
// session already indexed is left alone.
func (x *sessionIndex) seed(sess *storage.Session) {
	n := indexed(sess)
	x.mu.Lock()
	defer x.mu.Unlock()
	list := x.m[sess.AccountID]
	if slices.ContainsFunc(list, func(s indexedSession) bool { return s.key == n.key }) {
		return
	}
	list = append(list, n)
	slices.SortStableFunc(list, func(a, b indexedSession) int { return cmp.Compare(a.created, b.created) })
	x.m[sess.AccountID] = list
}

// remove forgets a session (logout, sweep).
func (x *sessionIndex) remove(sess *storage.Session) {
	key := sess.Key()
	x.mu.Lock()
	defer x.mu.Unlock()
	list := slices.DeleteFunc(x.m[sess.AccountID], func(s indexedSession) bool { return s.key == key })
	if len(list) == 0 {
		delete(x.m, sess.AccountID)
	} else {
		x.m[sess.AccountID] = list
	}
}

// drop forgets every indexed session of account id (all ended, or the
// account deleted).
func (x *sessionIndex) drop(id storage.AccountID) {
	x.mu.Lock()
	delete(x.m, id)
	x.mu.Unlock()
}

// count returns how many sessions of id are indexed (tests).
func (x *sessionIndex) count(id storage.AccountID) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.m[id])
}

// Logout ends the session of cookie. An unknown or expired cookie is an
// invalid cookie, as everywhere else.
func (s *Service) Logout(ctx context.Context, cookie string) error {
	sess, err := s.Authenticate(cookie)
	if err != nil {
		return err
	}
	if _, err := s.sys.Apply(ctx, sess.AccountID, &expireSessions{sessions: []*storage.Session{sess}}); err != nil {
		return writeFailure(err)
	}
	s.sessions.remove(sess)
	return nil
}

// writeFailure classifies a failed session write: refused before anything
// was written (busy, storage refusing writes) is a plain failure; one whose
// outcome is unknown (the commit outlasted the wait) says so, never "failed".
func writeFailure(err error) error {
	if failure.Uncertain(err) {
		return fail(ReasonOutcomeUnknown, err)
	}
	if errors.Is(err, storage.ErrDiskFull) || errors.Is(err, storage.ErrEngineFailed) {
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
