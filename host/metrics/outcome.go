package metrics

import (
	"bytes"
	"strconv"

	"github.com/honmaster/masterserver/host/cloud"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/plugins/guides/guidesapi"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
)

// Outcomes of a request. Most failures of this protocol are HTTP 200 with
// an error body, so the outcome is read from the reply itself: the login
// area's auth-failure shape, the Plinko area's status_code, the cloud
// area's success flag, the generic error array.
const (
	OutcomeOK          = "ok"
	OutcomeRefused     = "refused"      // the request was answered with a refusal (bad cookie, insufficient funds, bad input ...)
	OutcomeError       = "error"        // the server could not serve it (internal error, plugin unavailable)
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
	authPrefix    = []byte(`a:2:{s:4:"auth";`)
	errorPrefix   = []byte(`a:1:{s:5:"error";`)
	statusKey     = []byte(`s:11:"status_code";`)
	successFalse  = []byte(`s:7:"success";b:0;`)
	invalidStatus = []byte("invalid_request")
	guidesFailed  = []byte(`s:7:"success";i:0;`)
	noGuides      = []byte(`s:6:"errors";s:15:"no_guides_found";`)
)

// Outcome classifies a reply of area with HTTP status and body.
func Outcome(area string, status int, body []byte) string {
	switch {
	case status >= 500:
		return OutcomeServerError
	case status == 404:
		return OutcomeNotFound
	case status >= 400:
		return OutcomeClientError
	}
	switch area {
	case login.AreaName:
		if bytes.HasPrefix(body, authPrefix) {
			if name, ok := loginByBody[string(body)]; ok {
				return name
			}
			return OutcomeRefused
		}
	case string(plinkoapi.Area):
		if code, ok := statusCode(body); ok {
			switch code {
			case 1, 51:
				return OutcomeOK
			case 5, 8:
				return OutcomeError
			}
			return OutcomeRefused
		}
	case string(guidesapi.Area):
		// Every guide failure is the no_guides_found shape with success 0;
		// "no guides found" itself is an answer, not a refusal.
		if bytes.Contains(body, guidesFailed) && !bytes.Contains(body, noGuides) {
			return OutcomeRefused
		}
	case cloud.AreaName:
		if bytes.Contains(body, successFalse) || bytes.Equal(body, invalidStatus) {
			return OutcomeRefused
		}
	}
	if bytes.HasPrefix(body, errorPrefix) {
		return OutcomeError
	}
	return OutcomeOK
}

// statusCode reads the status_code entry of a PHP-serialized array, sent
// as an integer (i:1;) or as text (s:1:"1";).
func statusCode(body []byte) (int, bool) {
	i := bytes.Index(body, statusKey)
	if i < 0 {
		return 0, false
	}
	rest := body[i+len(statusKey):]
	switch {
	case bytes.HasPrefix(rest, []byte("i:")):
		rest = rest[2:]
	case bytes.HasPrefix(rest, []byte("s:")):
		q := bytes.IndexByte(rest, '"')
		if q < 0 {
			return 0, false
		}
		rest = rest[q+1:]
	default:
		return 0, false
	}
	end := bytes.IndexAny(rest, `;"`)
	if end < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(string(rest[:end]))
	return n, err == nil
}
