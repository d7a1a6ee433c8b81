package console

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// A console session is checked against its account's current state on
// every request, not only at sign-in: the account must still exist, hold
// the operator role, not be suspended, and have the credentials it signed
// in with. So whatever path changed the account (an operator command on
// the admin socket, the operator API, another operator's console, a
// suspension in an area's state, another node writing the same store) ends the
// session at its next request, without each path having to remember a
// hook. The check reads the account's published snapshot and two point
// records; it costs far less than the page it guards.

// credential fingerprints an account's SRP credentials. A password reset
// draws a new salt, so the fingerprint changes even when the new password
// is the old one: the account keeps no password-change counter, and the
// salt and verifier are what every password change rewrites.
func credential(v storage.SRPVerifier) [32]byte {
	h := sha256.New()
	var n [8]byte
	for _, part := range [][]byte{v.Salt, []byte(v.Salt2), v.Verifier} {
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// Why a session ends before it expires (the log line's reason).
const (
	endDeleted   = "the account was deleted"
	endPassword  = "the account's password changed"
	endRole      = "the account is no longer an operator"
	endSuspended = "the account is suspended"
)

// revoked returns why account id may no longer use a console session
// signed in with credentials cred, or "" when it still may. An error means
// the state could not be read: the caller refuses the request without
// ending the session.
func (c *Console) revoked(ctx context.Context, id storage.AccountID, cred [32]byte) (string, error) {
	a, err := c.d.Sys.Snapshot(ctx, id)
	if errors.Is(err, actors.ErrNoAccount) || errors.Is(err, storage.ErrNotFound) {
		return endDeleted, nil
	}
	if err != nil {
		return "", err
	}
	srp, err := c.d.Sys.DB().Credentials(id) // not in a live account's state
	if errors.Is(err, storage.ErrNotFound) {
		return endDeleted, nil
	}
	if err != nil {
		return "", err
	}
	if credential(srp) != cred {
		return endPassword, nil
	}
	return c.barred(a)
}

// barred returns why account a may not use the console at all (no
// operator role, suspended), or "".
func (c *Console) barred(a *storage.Account) (string, error) {
	db := c.d.Sys.DB()
	op, err := IsOperator(db, a.ID)
	if err != nil {
		return "", err
	}
	if !op {
		return endRole, nil
	}
	if a.SuspID != 0 {
		return endSuspended, nil
	}
	suspended, err := c.suspendedByArea(a, c.d.Now())
	if err != nil {
		return "", err
	}
	if suspended {
		return endSuspended, nil
	}
	return "", nil
}

// suspendedByArea reports whether an area holds account a suspended at
// now (hostarea.Live.Suspended).
func (c *Console) suspendedByArea(a *storage.Account, now time.Time) (bool, error) {
	for _, h := range c.accounts {
		if h.suspended == nil {
			continue
		}
		if s, err := h.suspended(c.d.Sys.DB(), a, now); err != nil || s {
			return s, err
		}
	}
	return false, nil
}

// renewCredential records that session s changed its own account's
// password: s goes on under the new credentials (its operator just proved
// who they are) while the account's other sessions end at their next
// request.
func (c *Console) renewCredential(s *session, v storage.SRPVerifier) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s.cred = credential(v)
}
