package reports

import (
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
)

// Errors of the area, matched with errors.Is. Their text never reaches a
// player: replies use Message.
var (
	// ErrBadRequest: the form does not parse (missing or malformed fields,
	// arrays of different lengths, too many reports in one request).
	ErrBadRequest = errors.New("reports: bad request")
	// ErrBadCookie: no valid session for the cookie. A Backend returns it
	// (wrapping its own cause) from Authenticate.
	ErrBadCookie = errors.New("reports: invalid cookie")
	// ErrNotReporter: account_id or reporter_id is not the session's account.
	ErrNotReporter = errors.New("reports: reporter is not the session's account")
	// ErrUnknownPlayer: no account has the reported nickname. A Backend
	// returns it from LookupPlayer.
	ErrUnknownPlayer = errors.New("reports: unknown player")
	// ErrDisabled: reporting is switched off in configuration.
	ErrDisabled = errors.New("reports: reporting disabled")
	// ErrUnknownReason: the type code is not in the path's code set.
	ErrUnknownReason = errors.New("reports: unknown report type")
	// ErrTextTooLong: the raw description exceeds MaxRawTextBytes.
	ErrTextTooLong = errors.New("reports: description too long")
	// ErrBadDecision: the plugin's decision breaks the tables (an accepted
	// report without priority, a refusal without a known reason, ...). The
	// report is not stored; nothing is altered silently.
	ErrBadDecision = errors.New("reports: invalid plugin decision")
	// ErrUnavailable: the plugin or storage could not answer. A Backend
	// wraps its cause with it.
	ErrUnavailable = errors.New("reports: service unavailable")
	// ErrAddressLimit: the client's address has filed its budget of
	// reports (limits.reports_per_address), over all its accounts.
	ErrAddressLimit = errors.New("reports: too many reports from this address")
	// ErrRefused: the plugin refused the report; the error is a
	// *RefusedError carrying the refusal.
	ErrRefused = errors.New("reports: report refused")
)

// RefusedError is a report the plugin's decision refused.
type RefusedError struct{ Refusal reportsapi.Refusal }

func (e *RefusedError) Error() string { return fmt.Sprintf("reports: report refused (%s)", e.Refusal) }

// Is makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// messageTable is the one table from causes to what a player (or a tool
// reading the reply) is told, checked in order with errors.Is.
var messageTable = []struct {
	err     error
	message string
}{
	{ErrDisabled, "Reporting is disabled on this server."},
	{ErrBadCookie, "Your session has expired. Please log in again."},
	{ErrNotReporter, "Your session does not match this account."},
	{ErrUnknownPlayer, "No player has that name."},
	{ErrUnknownReason, reportsapi.RefusalUnknownReason.Message()},
	{ErrTextTooLong, reportsapi.RefusalTextTooLong.Message()},
	{ErrAddressLimit, "Too many reports were sent from your address. Please try again later."},
	{ErrBadRequest, "The report could not be read."},
	{ErrBadDecision, msgNotChecked},
	{ErrUnavailable, msgNotChecked},
}

// Messages of failures of the server's own making (reportOutcome counts
// them as errors).
const (
	msgNotChecked  = "The report could not be checked. Please try again later."
	msgStorageFull = "The server cannot save reports right now; nothing was sent. Please try again later."
	msgNotSent     = "The report could not be sent. Please try again later."
)

// msgOutcomeUnknown answers a report that may have been filed.
const msgOutcomeUnknown = "The server could not confirm your report; it may have been filed. Please do not send it again."

// Message is what a player reads about err.
func Message(err error) string {
	var ref *RefusedError
	if errors.As(err, &ref) {
		return ref.Refusal.Message()
	}
	cause := area.CauseOf(err)
	if cause == area.CauseOutcomeUnknown {
		// Its commit outlasted the wait: the report may be filed, and a
		// player told "not sent" would file it again.
		return msgOutcomeUnknown
	}
	for _, row := range messageTable {
		if errors.Is(err, row.err) {
			return row.message
		}
	}
	// The causes every area shares (area.CauseOf), in this area's words.
	switch cause {
	case area.CauseBadCookie:
		return "Your session has expired. Please log in again."
	case area.CausePluginDown:
		return msgNotChecked
	case area.CauseStorageFull:
		return msgStorageFull
	}
	return msgNotSent
}
