package reports

import (
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/server"
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

// Messages of failures of the server's own making (counted as errors).
const (
	msgNotChecked  = "The report could not be checked. Please try again later."
	msgStorageFull = "The server cannot save reports right now; nothing was sent. Please try again later."
	msgNotSent     = "The report could not be sent. Please try again later."
	msgBadCookie   = "Your session has expired. Please log in again."
)

// msgOutcomeUnknown answers a report that may have been filed: its commit
// outlasted the wait, and a player told "not sent" would file it again.
const msgOutcomeUnknown = "The server could not confirm your report; it may have been filed. Please do not send it again."

// replies is the area's one table from causes to what a player (or a tool
// reading the reply's message) is told (host/area): a report of unknown
// outcome first, then the plugin's refusals, the area's own errors (in
// order, with errors.Is) and the causes every area shares, in this area's
// words; anything else was not sent. A reply counts in the metrics by its
// message: the server's own failures as errors, the others as refusals.
var replies = func() *area.Replies {
	fault := func(msg string) area.Answer { return area.Answer{Error: msg, Outcome: server.OutcomeError} }
	t := area.CauseTable{Key: "message", OutcomeUnknown: fault(msgOutcomeUnknown), Internal: fault(msgNotSent)}
	for r := reportsapi.RefusalUnknownReason; r.Valid(); r++ {
		t.Rows = append(t.Rows, area.Row{Match: refusedWith(r), Answer: area.Answer{Error: r.Message()}})
	}
	t.Rows = append(t.Rows,
		area.Row{Err: ErrRefused, Answer: area.Answer{Error: reportsapi.RefusalRule.Message()}}, // a refusal the table lacks
		area.Row{Err: ErrDisabled, Answer: area.Answer{Error: "Reporting is disabled on this server."}},
		area.Row{Err: ErrBadCookie, Answer: area.Answer{Error: msgBadCookie}},
		area.Row{Err: ErrNotReporter, Answer: area.Answer{Error: "Your session does not match this account."}},
		area.Row{Err: ErrUnknownPlayer, Answer: area.Answer{Error: "No player has that name."}},
		area.Row{Err: ErrUnknownReason, Answer: area.Answer{Error: reportsapi.RefusalUnknownReason.Message()}},
		area.Row{Err: ErrTextTooLong, Answer: area.Answer{Error: reportsapi.RefusalTextTooLong.Message()}},
		area.Row{Err: ErrAddressLimit, Answer: area.Answer{Error: "Too many reports were sent from your address. Please try again later."}},
		area.Row{Err: ErrBadRequest, Answer: area.Answer{Error: "The report could not be read."}},
		area.Row{Err: ErrBadDecision, Answer: fault(msgNotChecked)},
		area.Row{Err: ErrUnavailable, Answer: fault(msgNotChecked)},
		area.Row{Cause: area.CauseBadCookie, Answer: area.Answer{Error: msgBadCookie}},
		area.Row{Cause: area.CauseBadRequest, Answer: area.Answer{Error: "The report could not be read."}},
		area.Row{Cause: area.CausePluginDown, Answer: fault(msgNotChecked)},
		area.Row{Cause: area.CauseStorageFull, Answer: fault(msgStorageFull)})
	return area.NewReplies(areaName, nil, t)
}()

// refusedWith matches the plugin's refusals for reason r.
func refusedWith(r reportsapi.Refusal) func(error) bool {
	return func(err error) bool {
		var ref *RefusedError
		return errors.As(err, &ref) && ref.Refusal == r
	}
}

// Message is what a player reads about err.
func Message(err error) string { return replies.Answer(err).Error }
