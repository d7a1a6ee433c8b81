package login

import "github.com/honmaster/masterserver/host/failure"

// Reason is why a login call failed. Every reason has one message, sent in
// the shape the original service used for an invalid cookie (protocol-notes
// §1): a:2:{s:4:"auth";s:<n>:"<message>";i:0;b:0;}
type Reason int

// The failure reasons of the login calls.
const (
	ReasonInternal Reason = iota
	ReasonInvalidCookie
	ReasonUnknownAccount
	ReasonWrongPassword
	ReasonNoPendingLogin
	ReasonMalformed
	ReasonLoginTooLong
	ReasonNotYourAccount
	ReasonTooLarge
	ReasonTooManyFailures
	ReasonOutcomeUnknown
	ReasonStorageFull
	ReasonTooManySwitches
	ReasonTooManyLogins
)

// messages is the one table of failure texts. "Invalid cookie.1" is the
// original service's recorded text; the others were never recorded.
var messages = map[Reason]string{
	ReasonInternal:        "Internal error, please try again.",
	ReasonInvalidCookie:   "Invalid cookie.1",
	ReasonUnknownAccount:  "Incorrect login or password.", // never told apart from a wrong password
	ReasonWrongPassword:   "Incorrect login or password.",
	ReasonNoPendingLogin:  "No login in progress for this account; please log in again.",
	ReasonMalformed:       "Malformed login request.",
	ReasonLoginTooLong:    "Login names are at most 12 characters.",
	ReasonNotYourAccount:  "That account does not belong to you.",
	ReasonTooLarge:        "Request too large.",
	ReasonTooManyFailures: "Too many failed logins from your address; please wait a minute and try again.",
	ReasonOutcomeUnknown:  "The server is slow to confirm; your request may or may not have been done. Please check and try again.",
	ReasonStorageFull:     "The server cannot save right now; nothing was changed. Please try again later.",
	ReasonTooManySwitches: "Too many account switches in a short time; please wait a moment and try again.",
	ReasonTooManyLogins:   "Too many logins from your address; please wait a moment and try again.",
}

// Message returns the client-facing text of r.
func (r Reason) Message() string { return messages[r] }

// Area names the login area in error texts.
func (Reason) Area() string { return AreaName }

// AreaName names the login area in routes, metrics and error texts.
const AreaName = "login"

// Error is a login failure with its reason; the cause, if any, is for logs.
type Error = failure.Error[Reason]

func fail(r Reason, cause error) error { return failure.New(r, cause) }

// ReasonOf returns the reason of a login error; errors of other kinds are
// internal.
func ReasonOf(err error) Reason { return failure.ReasonOf(err, ReasonInternal) }

// FailureReply is the wire body of a failed login call.
type FailureReply struct {
	Auth string `php:"auth"`
	OK   bool   `php:"0"`
}

// Failure returns the reply for err.
func Failure(err error) *FailureReply { return &FailureReply{Auth: ReasonOf(err).Message()} }
