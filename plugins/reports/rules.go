package reports

import "github.com/honmaster/masterserver/plugins/sdk"

// The area's contract types live in plugins/sdk (reports.go), which carries
// them over the plugin contract; these names are the area's own.
type (
	// Limits are the bundled rule's numbers (sdk.ReportLimits).
	Limits = sdk.ReportLimits
	// Facts are what the host knows about one report (sdk.ReportFacts).
	Facts = sdk.ReportFacts
	// Refusal says why a report was not accepted (sdk.ReportRefusal).
	Refusal = sdk.ReportRefusal
	// Decision is a plugin's answer for one report (sdk.ReportDecision).
	Decision = sdk.ReportDecision
)

// DefaultLimits are the limits' defaults (sdk.DefaultReportLimits).
var DefaultLimits = sdk.DefaultReportLimits

// Refusals.
const (
	RefusalNone          = sdk.RefusalNone
	RefusalUnknownReason = sdk.RefusalUnknownReason
	RefusalTextTooLong   = sdk.RefusalTextTooLong
	RefusalSelfReport    = sdk.RefusalSelfReport
	RefusalDailyLimit    = sdk.RefusalDailyLimit
	RefusalReporteeLimit = sdk.RefusalReporteeLimit
	RefusalRule          = sdk.RefusalRule
)

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
	if f.IsNew(lim) {
		// A new account's report waits at the bottom of the queue: an
		// account made to push a player up (a sock puppet) must first
		// age past limits.new_account_age, as a real player's has.
		return Decision{Accept: true, Priority: 1}
	}
	// Other reporters count as established accounts only: twenty fresh
	// puppets must not lift a player to the top through another's report.
	p := 1 + max(f.DistinctReportersOfReportee-max(f.NewReportersOfReportee, 0), 0)
	return Decision{Accept: true, Priority: min(p, lim.MaxPriority)}
}
