package guides

import (
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/server"
)

// Reason is why a guide function failed; its Message is the errors text of
// the failure reply (one table: reasonText).
type Reason int

// Reasons of a failed guide function.
const (
	ReasonInternal       Reason = iota // storage or actor failure
	ReasonBadRequest                   // malformed form or field
	ReasonInvalidCookie                // missing, unknown or expired cookie
	ReasonWrongAccount                 // account is not the cookie's account
	ReasonNotFound                     // unknown, hidden or probe gid (recorded: no_guides_found)
	ReasonVoteRefused                  // the guides plugin did not count the vote
	ReasonUnavailable                  // the guides plugin is down or failed
	ReasonOutcomeUnknown               // a vote's commit outlasted the wait: it may have been counted
	ReasonStorageFull                  // storage refuses writes (disk below its margin): nothing was written
	ReasonTooManyChanges               // a mark past the account's or the address's budget (limits.toggles_*): nothing was written
)

// reasonText is the errors text of each reason. no_guides_found is the
// original service's; the others are this server's, in the same style.
var reasonText = [...]string{
	ReasonInternal:       "internal_error",
	ReasonBadRequest:     "bad_request",
	ReasonInvalidCookie:  "invalid_cookie",
	ReasonWrongAccount:   "wrong_account",
	ReasonNotFound:       "no_guides_found",
	ReasonVoteRefused:    "vote_refused",
	ReasonUnavailable:    "guides_unavailable",
	ReasonOutcomeUnknown: "outcome_unknown",
	ReasonStorageFull:    "storage_full",
	ReasonTooManyChanges: "too_many_changes",
}

// Message is the errors text the client receives.
func (r Reason) Message() string {
	if r < 0 || int(r) >= len(reasonText) {
		return reasonText[ReasonInternal]
	}
	return reasonText[r]
}

// Area names the area in logs.
func (Reason) Area() string { return areaName }

// Fail returns a failure for reason r caused by cause (may be nil); the
// cause reaches logs only.
func Fail(r Reason, cause error) error { return failure.New(r, cause) }

// Sentinels matching every failure of their reason with errors.Is.
var (
	ErrInternal      error = &failure.Error[Reason]{Reason: ReasonInternal}
	ErrBadRequest    error = &failure.Error[Reason]{Reason: ReasonBadRequest}
	ErrInvalidCookie error = &failure.Error[Reason]{Reason: ReasonInvalidCookie}
	ErrWrongAccount  error = &failure.Error[Reason]{Reason: ReasonWrongAccount}
	ErrNotFound      error = &failure.Error[Reason]{Reason: ReasonNotFound}
	ErrVoteRefused   error = &failure.Error[Reason]{Reason: ReasonVoteRefused}
	ErrUnavailable   error = &failure.Error[Reason]{Reason: ReasonUnavailable}
)

// replies is the area's table of causes (host/area): the reason of a
// failure, its text in errors. A change whose outcome is unknown says so
// whatever else the error says, and a full disk is told apart from an
// internal failure (the causes every area shares, area.CauseOf), then
// each reason's failures (Fail) are answered with its text; anything else
// is internal. A reply counts in the metrics by its errors text:
// no_guides_found is an answer, not a refusal; the server's failures are
// errors.
var replies = func() *area.Replies {
	answer := func(r Reason) area.Answer {
		a := area.Answer{Error: r.Message()}
		switch r {
		case ReasonNotFound:
			a.Outcome = server.OutcomeOK
		case ReasonInternal, ReasonUnavailable, ReasonOutcomeUnknown, ReasonStorageFull:
			a.Outcome = server.OutcomeError
		}
		return a
	}
	t := area.CauseTable{Key: "errors", OutcomeUnknown: answer(ReasonOutcomeUnknown), Internal: answer(ReasonInternal),
		Rows: []area.Row{{Cause: area.CauseStorageFull, Answer: answer(ReasonStorageFull)}}}
	for r := range Reason(len(reasonText)) {
		t.Rows = append(t.Rows, area.Row{Err: &failure.Error[Reason]{Reason: r}, Answer: answer(r)})
	}
	// A request the host could not read (area.NewRoute).
	t.Rows = append(t.Rows, area.Row{Cause: area.CauseBadRequest, Answer: answer(ReasonBadRequest)})
	return area.NewReplies(areaName, nil, t)
}()

// ReasonOf returns the reason of err as the area answers it (replies); an
// error that is not a guides failure is internal.
func ReasonOf(err error) Reason { return reasonByText[replies.Answer(err).Error] }

var reasonByText = func() map[string]Reason {
	m := map[string]Reason{}
	for r, text := range reasonText {
		m[text] = Reason(r)
	}
	return m
}()
