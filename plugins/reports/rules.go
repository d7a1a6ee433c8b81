package reports

import "fmt"

// Limits are the bundled rule's numbers. Every one is a setting with a safe
// default (DefaultLimits); the host passes them in the facts so a plugin
// needs no configuration of its own.
type Limits struct {
	// PerDay is how many reports one reporter may file in Window.
	PerDay int
	// PerReportee is how many of those may name the same reportee.
	PerReportee int
	// MaxTextRunes is the longest description, in characters (runes).
	MaxTextRunes int
	// MaxPriority caps a report's priority.
	MaxPriority int
}

// DefaultLimits: a player reports at most the 9 others of a match, a few
// matches a day; 20 a day is generous for honest use and cheap for the
// server. Two reports a day against one player stop a grudge from filling
// the queue. 210 is the stock client's own limit.
var DefaultLimits = Limits{PerDay: 20, PerReportee: 2, MaxTextRunes: 210, MaxPriority: 10}

// WithDefaults returns l with every zero or negative field replaced by
// DefaultLimits' value: there is no "unlimited".
func (l Limits) WithDefaults() Limits {
	if l.PerDay <= 0 {
		l.PerDay = DefaultLimits.PerDay
	}
	if l.PerReportee <= 0 {
		l.PerReportee = DefaultLimits.PerReportee
	}
	if l.MaxTextRunes <= 0 {
		l.MaxTextRunes = DefaultLimits.MaxTextRunes
	}
	if l.MaxPriority <= 0 {
		l.MaxPriority = DefaultLimits.MaxPriority
	}
	return l
}

// Facts are what the host knows about one report when it asks whether to
// accept it. The counts come from the reporter's own stored reports (and
// the reportee's index), so they are exact across restarts.
type Facts struct {
	Reporter uint32
	Reportee uint32
	// SameOwner: reporter and reportee are accounts of the same main
	// account (a player reporting their own sub-account).
	SameOwner bool
	Reason    Reason
	// TextLen is the description's length in runes as it would be stored.
	TextLen int
	// Match is the match id as the client sent it (never checked: the
	// server has no match data).
	Match string
	// ReporterRecentCount is how many reports the reporter filed in the
	// window before this one (including earlier ones of the same request).
	ReporterRecentCount int
	// ReporterToReporteeCount is how many of those name this reportee.
	ReporterToReporteeCount int
	// DistinctReportersOfReportee is how many other players have open
	// reports against the reportee.
	DistinctReportersOfReportee int
	Limits                      Limits
}

// Refusal says why a report was not accepted; RefusalNone for an accepted
// one.
type Refusal uint8

// Refusals of the bundled rule, and RefusalRule for an operator's plugin
// that refuses by a rule of its own.
const (
	RefusalNone          Refusal = 0
	RefusalUnknownReason Refusal = 1
	RefusalTextTooLong   Refusal = 2
	RefusalSelfReport    Refusal = 3
	RefusalDailyLimit    Refusal = 4
	RefusalReporteeLimit Refusal = 5
	RefusalRule          Refusal = 6
)

// refusalTable is the one table of refusals: name (logs) and the message a
// player or a tool reads.
var refusalTable = []struct {
	refusal Refusal
	name    string
	message string
}{
	{RefusalNone, "none", ""},
	{RefusalUnknownReason, "unknown_reason", "Unknown report type."},
	{RefusalTextTooLong, "text_too_long", "The description is too long."},
	{RefusalSelfReport, "self_report", "You cannot report yourself."},
	{RefusalDailyLimit, "daily_limit", "You have sent too many reports today. Try again tomorrow."},
	{RefusalReporteeLimit, "reportee_limit", "You have already reported this player today."},
	{RefusalRule, "rule", "The report was not accepted."},
}

// Valid reports whether r is in the table.
func (r Refusal) Valid() bool {
	for _, row := range refusalTable {
		if row.refusal == r {
			return true
		}
	}
	return false
}

// String is the refusal's name ("daily_limit"), or "refusal(N)".
func (r Refusal) String() string {
	for _, row := range refusalTable {
		if row.refusal == r {
			return row.name
		}
	}
	return fmt.Sprintf("refusal(%d)", uint8(r))
}

// Message is what a player reads about r.
func (r Refusal) Message() string {
	for _, row := range refusalTable {
		if row.refusal == r {
			return row.message
		}
	}
	return "The report was not accepted."
}

// Decision is a plugin's answer for one report.
type Decision struct {
	Accept   bool
	Refusal  Refusal // RefusalNone exactly when Accept
	Priority int     // 1..Limits.MaxPriority when Accept, 0 otherwise
}

// Decide is the bundled rule: refuse an unknown reason, a description
// longer than the limit, a report of oneself (or of one's own
// sub-account), and a reporter over the daily or per-reportee limit;
// accept the rest with priority 1 plus one for every other player who has
// an open report against the same reportee, capped at MaxPriority, so a
// player many people report rises in the queue.
func Decide(f Facts) Decision {
	lim := f.Limits.WithDefaults()
	refuse := func(r Refusal) Decision { return Decision{Refusal: r} }
	switch {
	case !f.Reason.Valid():
		return refuse(RefusalUnknownReason)
	case f.TextLen > lim.MaxTextRunes:
		return refuse(RefusalTextTooLong)
	case f.Reporter == f.Reportee || f.SameOwner:
		return refuse(RefusalSelfReport)
	case f.ReporterRecentCount >= lim.PerDay:
		return refuse(RefusalDailyLimit)
	case f.ReporterToReporteeCount >= lim.PerReportee:
		return refuse(RefusalReporteeLimit)
	}
	p := 1 + max(f.DistinctReportersOfReportee, 0)
	return Decision{Accept: true, Priority: min(p, lim.MaxPriority)}
}
