package reports

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/honmaster/masterserver/host/failure/detail"
	rules "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
)

// ReportID names one stored report: the reporter and the reporter's own
// sequence number (1, 2, ...). It needs no global counter, so the
// reporter's actor can mint it alone, and it sorts a reporter's reports in
// the order they were filed. Its text form is "<reporter>-<seq>".
type ReportID struct {
	Reporter storage.AccountID
	Seq      uint32
}

// String is the ID as commands print and take it: "123-7".
func (id ReportID) String() string {
	return strconv.FormatUint(uint64(id.Reporter), 10) + "-" + strconv.FormatUint(uint64(id.Seq), 10)
}

// IsZero reports whether id is the zero ID (no report).
func (id ReportID) IsZero() bool { return id == ReportID{} }

// ErrBadReportID: text that is not "<reporter>-<seq>" with both parts
// decimal and seq >= 1 (a detail.Error of this kind quotes the text).
var ErrBadReportID = errors.New("bad report id")

// ParseReportID reads the text form of a ReportID.
func ParseReportID(s string) (ReportID, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return ReportID{}, detail.New(ErrBadReportID, "%q is not REPORTER-NUMBER (e.g. 12-3)", s)
	}
	r, err1 := strconv.ParseUint(a, 10, 32)
	n, err2 := strconv.ParseUint(b, 10, 32)
	if err1 != nil || err2 != nil || n == 0 || strings.HasPrefix(a, "+") || strings.HasPrefix(b, "+") {
		return ReportID{}, detail.New(ErrBadReportID, "%q is not REPORTER-NUMBER (e.g. 12-3)", s)
	}
	return ReportID{Reporter: storage.AccountID(r), Seq: uint32(n)}, nil
}

// Source is the path a report came by.
type Source uint8

// Sources.
const (
	SourceReport2 Source = 1 // /rap/report2.php
	SourceMaster  Source = 2 // /master/report/report
)

// CodeSet is the numbering of reason codes on s's path.
func (s Source) CodeSet() reportsapi.CodeSet {
	if s == SourceMaster {
		return reportsapi.CodesMaster
	}
	return reportsapi.CodesReport2
}

// String is the path of s.
func (s Source) String() string {
	switch s {
	case SourceReport2:
		return PathReport2
	case SourceMaster:
		return PathReport
	}
	return fmt.Sprintf("source(%d)", uint8(s))
}

// Account is what the area needs to know of a reporter or reportee.
type Account struct {
	ID       storage.AccountID
	Owner    storage.AccountID // the main account (SuperID); equal to ID for a main account
	Nickname string
}

// Draft is one report as the host understood it, before the reporter's
// actor accepts and numbers it.
type Draft struct {
	Source    Source
	Reportee  Account
	Reason    reportsapi.Reason
	Text      string // cleaned: quirk undone, control characters removed, cut to MaxTextRunes
	RawText   string // as received, but for bytes that are not UTF-8 (U+FFFD)
	Truncated bool   // Text was cut
	Match     string // match id as sent (bytes that are not UTF-8: U+FFFD); the server has no match data to check it against
	Minute    int    // minute of the match, as sent
}

// Report is one stored report. The submission (everything but Resolution
// and ReporteeDeleted) is written once by the reporter's actor and never
// changes; the resolution is written later by the reportee's actor, under
// the reportee's records (or, once the reportee's account was deleted, a
// dismissal by the reporter's actor, beside the report); a Report is the
// two joined.
type Report struct {
	ID       ReportID
	Reporter Account
	Draft
	Received time.Time // server time the report was accepted
	SysInfo  string    // reporter's latest SysInfo when it was filed
	Priority int       // from the decision, 1..MaxPriority

	Resolution *Resolution // nil while open
	// ReporteeDeleted: the reportee's account was deleted since the report
	// was filed (read by Load, not stored): there is no one to warn or
	// suspend, and no standing to show.
	ReporteeDeleted bool
}

// Status is where the report stands: open until resolved, then the status
// of its resolution's action.
func (r *Report) Status() rules.Status {
	if r.Resolution == nil {
		return rules.StatusOpen
	}
	if s, ok := rules.StatusOf(r.Resolution.Action); ok {
		return s
	}
	return rules.StatusOpen
}

// Resolution is a moderator's verdict on one report.
type Resolution struct {
	Report    ReportID
	Action    rules.Action
	Days      int // suspension or warning length; 0 for a dismissal
	Note      string
	Moderator string // who resolved it (the operator's user name, or "admin")
	Time      time.Time
}

// Moderation is one account's moderation state, written by that account's
// actor together with the resolution that changed it. The zero value is an
// account in good standing.
type Moderation struct {
	Standing rules.Standing    // StandingNormal, StandingWarning or StandingSuspended
	Reason   reportsapi.Reason // of the resolution that set Standing
	Note     string            // the moderator's note of that resolution
	Report   ReportID          // the report whose resolution set Standing
	Since    time.Time
	Until    time.Time // the warning or suspension ends at Until (exclusive)
	// PopupPending: the client has not yet been shown this warning or
	// suspension; reportinforequest shows it once and clears it.
	PopupPending bool
	// GuiltyLevel counts the warnings and suspensions the account ever
	// received (dismissals do not count).
	GuiltyLevel int
	// Suspensions counts the suspensions the account ever received; the
	// current suspension's number is the session record's susp_id.
	Suspensions int
	// WarnUntil is the end of a warning that outlasts the suspension over
	// it (a suspension given, or ended, while a longer warning ran; a
	// warning given during a suspension): once the suspension is over the
	// player is under a warning until WarnUntil. Zero: none.
	WarnUntil time.Time
}

// DefaultWarningDays is how long a warning stays in the account's status
// when the moderator gives no --days.
const DefaultWarningDays = 7

// Effective is the standing at time now: a warning or suspension ends by
// itself at Until, with no write needed; then a warning that outlasts it
// runs until WarnUntil.
func (m Moderation) Effective(now time.Time) rules.Standing {
	st, _ := m.effective(now)
	return st
}

// Ends is when the standing Effective gives at now ends (zero in good
// standing).
func (m Moderation) Ends(now time.Time) time.Time {
	_, end := m.effective(now)
	return end
}

func (m Moderation) effective(now time.Time) (rules.Standing, time.Time) {
	switch m.Standing {
	case rules.StandingWarning, rules.StandingSuspended:
		if now.Before(m.Until) {
			return m.Standing, m.Until
		}
	}
	if now.Before(m.WarnUntil) {
		return rules.StandingWarning, m.WarnUntil
	}
	return rules.StandingNormal, time.Time{}
}

// Suspended reports whether the account is suspended at time now.
func (m Moderation) Suspended(now time.Time) bool {
	return m.Effective(now) == rules.StandingSuspended
}

// Apply returns the state after resolution res of a report for reason,
// at time now. A dismissal changes nothing. A second, shorter verdict
// never frees a player early, nor ends a warning early:
//   - A warning runs from now for res.Days (DefaultWarningDays when 0),
//     or until a running warning's later end. During a suspension it does
//     not replace it: it runs on after it (WarnUntil).
//   - A suspension runs from now for res.Days, or until a running
//     suspension's later end. A running warning that would end after it
//     runs on after it (WarnUntil).
//
// The standing shows the reason and note of the verdict that set Standing:
// a warning that runs on after a suspension shows the suspension's, and
// has no popup of its own (WarnUntil keeps its end only).
func (m Moderation) Apply(res Resolution, reason reportsapi.Reason, now time.Time) Moderation {
	days := time.Duration(res.Days) * 24 * time.Hour
	st, end := m.effective(now)
	switch res.Action {
	case rules.ActionWarn:
		m.GuiltyLevel++
		if res.Days <= 0 {
			days = DefaultWarningDays * 24 * time.Hour
		}
		until := now.Add(days)
		if st == rules.StandingSuspended {
			m.WarnUntil = latest(m.WarnUntil, until)
			return m
		}
		if st == rules.StandingWarning {
			until = latest(until, end)
		}
		m.Standing, m.Reason, m.Note, m.Report = rules.StandingWarning, reason, res.Note, res.Report
		m.Since, m.Until, m.WarnUntil, m.PopupPending = now, until, time.Time{}, true
	case rules.ActionSuspend:
		m.GuiltyLevel++
		m.Suspensions++
		until := now.Add(days)
		switch st {
		case rules.StandingSuspended:
			until = latest(until, end)
		case rules.StandingWarning:
			m.WarnUntil = end
		}
		if !m.WarnUntil.After(until) {
			m.WarnUntil = time.Time{}
		}
		m.Standing, m.Reason, m.Note, m.Report = rules.StandingSuspended, reason, res.Note, res.Report
		m.Since, m.Until, m.PopupPending = now, until, true
	}
	return m
}

// latest is the later of a and b.
func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Shown returns the state after reportinforequest has shown the popup.
func (m Moderation) Shown() Moderation {
	m.PopupPending = false
	return m
}

// EndDateLayout is the format of reportinforequest's endDate (UTC), the
// same form as the cloud calls' file_modify_time.
const EndDateLayout = "2006-01-02 15:04:05"

// StatusView is what reportinforequest shows at time now.
type StatusView struct {
	ForcePopup  bool
	Standing    rules.Standing
	Reason      string // the reason's title, and the moderator's note after " - " when there is one
	GuiltyLevel int
	EndDate     string // EndDateLayout in UTC; "" in good standing
}

// View is the reporting status at time now. A warning or suspension that
// has ended shows as normal, without popup.
func (m Moderation) View(now time.Time) StatusView {
	v := StatusView{Standing: m.Effective(now), GuiltyLevel: m.GuiltyLevel}
	if v.Standing == rules.StandingNormal {
		return v
	}
	v.ForcePopup = m.PopupPending
	v.Reason = m.Reason.Title()
	if m.Note != "" {
		v.Reason += " - " + m.Note
	}
	v.EndDate = m.Ends(now).UTC().Format(EndDateLayout)
	return v
}

// SessionFields are the session record's susp_id and standing for an
// account with moderation m and stored standing base, at time now:
// susp_id is the number of the running suspension ("0" when not
// suspended); standing is the account's stored standing unchanged (it is
// the account's tier, which the client uses for more than moderation).
func (m Moderation) SessionFields(base int, now time.Time) (suspID, standing string) {
	suspID = "0"
	if m.Suspended(now) && m.Suspensions > 0 {
		suspID = strconv.Itoa(m.Suspensions)
	}
	return suspID, strconv.Itoa(base)
}
