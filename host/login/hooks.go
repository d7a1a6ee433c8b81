package login

import (
	"time"

	"github.com/honmaster/masterserver/actors"
)

// ClientInfo is what the client said about itself while logging in.
// Moderators use SysInfo to tie accounts together; it is stored by the
// session hook and never logged.
type ClientInfo struct {
	// PreAuthSysInfo is pre_auth's SysInfo: MAC|OS|CPU|GPU|RAM on Windows,
	// "not running on windows" elsewhere.
	PreAuthSysInfo string
	// SysInfo is srpAuth's: a hardware-id hash repeated five times, or
	// "not obtainable". Empty for switch_auth, which sends none.
	SysInfo string
}

// SessionHook lets another area take part in opening a session without
// the login service knowing the area: it runs inside the account's actor,
// in the change that stores the new session, so its writes commit with
// the session; it returns session record fields to set. Its error refuses
// the login (an internal error). now is the session's creation time.
type SessionHook func(tx *actors.Tx, c ClientInfo, now time.Time) (RecordFields, error)

// RecordFields are session record fields a hook sets; an empty value keeps
// what login built from the account.
type RecordFields struct {
	SuspID string // susp_id
}

// SetSessionHook installs h for every session opened from now on. Call it
// before serving (it is not synchronized with logins in flight).
func (s *Service) SetSessionHook(h SessionHook) { s.hook = h }
