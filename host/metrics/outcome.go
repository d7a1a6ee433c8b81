package metrics

import (
	"bytes"

	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
)

// Outcomes of a request. Most failures of this protocol are HTTP 200 with
// an error body, so the outcome is read from the reply itself: by the
// route's area (server.Route.Outcome), the login area's auth-failure
// shape, the generic error array.
const (
	OutcomeOK          = server.OutcomeOK
	OutcomeRefused     = server.OutcomeRefused
	OutcomeError       = server.OutcomeError
	OutcomeNotFound    = "not_found"    // unknown path or function (HTTP 404)
	OutcomeClientError = "client_error" // other HTTP 4xx
	OutcomeServerError = "server_error" // HTTP 5xx
)

// loginOutcomes name the login failure reasons in metrics, so that logins
// are counted by why they failed. A reason missing here counts as
// "refused".
var loginOutcomes = map[login.Reason]string{
	login.ReasonInternal:      OutcomeError,
	login.ReasonInvalidCookie: "invalid_cookie",
	// An unknown account answers exactly as a wrong password does (so that
	// nobody can probe which logins exist); read from the reply, the two are
	// one outcome.
	login.ReasonUnknownAccount:  "wrong_password",
	login.ReasonWrongPassword:   "wrong_password",
	login.ReasonNoPendingLogin:  "no_pending_login",
	login.ReasonMalformed:       "malformed",
	login.ReasonLoginTooLong:    "login_too_long",
	login.ReasonNotYourAccount:  "not_your_account",
	login.ReasonTooLarge:        "too_large",
	login.ReasonTooManyFailures: "too_many_failures",
	login.ReasonOutcomeUnknown:  "outcome_unknown",
	login.ReasonStorageFull:     "storage_full",
	login.ReasonTooManySwitches: "too_many_switches",
	login.ReasonTooManyLogins:   "too_many_logins",
}

// loginByBody maps each login failure body to its outcome.
var loginByBody = func() map[string]string {
	m := map[string]string{}
	for r, name := range loginOutcomes {
		if body, err := loginFailureBody(r); err == nil {
			m[string(body)] = name
		}
	}
	return m
}()

var (
	authPrefix  = []byte(`a:2:{s:4:"auth";`)
	errorPrefix = []byte(`a:1:{s:5:"error";`)
)

// Outcome classifies a reply: by its HTTP status, then by the route's own
// reading of its body (server.Route.Outcome: each area knows its failure
// shapes), then the login area's auth-failure shape and the generic error
// array.
func Outcome(r *server.RequestInfo) string {
	switch {
	case r.Status >= 500:
		return OutcomeServerError
	case r.Status == 404:
		return OutcomeNotFound
	case r.Status >= 400:
		return OutcomeClientError
	}
	if r.Outcome != nil {
		if o := r.Outcome(r.Body); o != "" {
			return o
		}
	}
	if r.Area == login.AreaName && bytes.HasPrefix(r.Body, authPrefix) {
		if name, ok := loginByBody[string(r.Body)]; ok {
			return name
		}
		return OutcomeRefused
	}
	if bytes.HasPrefix(r.Body, errorPrefix) {
		return OutcomeError
	}
	return OutcomeOK
}
