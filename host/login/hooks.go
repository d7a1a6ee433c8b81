package login

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// ClientInfo is what the client said about itself while logging in.
// Moderators use SysInfo to tie accounts together; it is stored by the
// session hook and never logged. Both values are valid UTF-8 of at most
// MaxSysInfoBytes (boundSysInfo).
type ClientInfo struct {
	// PreAuthSysInfo is pre_auth's SysInfo: MAC|OS|CPU|GPU|RAM on Windows,
	// "not running on windows" elsewhere.
	PreAuthSysInfo string
	// SysInfo is srpAuth's: a hardware-id hash repeated five times, or
	// "not obtainable". Empty for switch_auth, which sends none.
	SysInfo string
	// Family is the ids of the accounts of the session's account's family
	// (its main account first, then the sub-accounts), as the login record
	// lists them, read in the commit: a hook needs not read them again.
	// Nil where not known.
	Family []storage.AccountID
}

// MaxSysInfoBytes bounds each SysInfo the login service keeps (with a
// pending handshake, for its whole lifetime) and gives a session hook. A
// client's are about a hundred bytes; a stranger's may be as long as a
// request body, and pre_auth needs no account, so without the bound one
// address could pin pre_auth_per_address handshakes of a MiB each.
const MaxSysInfoBytes = 512

// boundSysInfo is s as the login service keeps it: valid UTF-8 (any other
// byte is U+FFFD: the hooks store it in protobuf strings, which refuse
// anything else) and at most MaxSysInfoBytes, cut at a character
// boundary.
func boundSysInfo(s string) string {
	if len(s) > 4*MaxSysInfoBytes {
		s = s[:4*MaxSysInfoBytes] // enough to fill the bound after replacements
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= MaxSysInfoBytes {
		return s
	}
	cut := MaxSysInfoBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
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
