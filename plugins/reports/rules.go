package reports

import "github.com/honmaster/masterserver/plugins/reports/reportsapi"

// Decide is the bundled rule: refuse an unknown reason, a description
// longer than the limit, a report of oneself (or of one's own
// sub-account), and a reporter over the daily or per-reportee limit;
// accept the rest with priority 1 plus one for every other established
// player who has an open report against the same reportee, capped at
// MaxPriority (a new reporter's report gets 1), so a player many people
// report rises in the queue.
func Decide(f reportsapi.Facts) reportsapi.Decision {
	lim := f.Limits.WithDefaults()
	refuse := func(r reportsapi.Refusal) reportsapi.Decision { return reportsapi.Decision{Refusal: r} }
	switch {
	case !f.Reason.Valid():
		return refuse(reportsapi.RefusalUnknownReason)
	case f.TextLen > lim.MaxTextRunes:
		return refuse(reportsapi.RefusalTextTooLong)
	case f.Reporter == f.Reportee || f.SameOwner:
		return refuse(reportsapi.RefusalSelfReport)
	case f.ReporterRecentCount >= lim.PerDay:
		return refuse(reportsapi.RefusalDailyLimit)
	case f.ReporterToReporteeCount >= lim.PerReportee:
		return refuse(reportsapi.RefusalReporteeLimit)
	}
	if f.IsNew(lim) {
		// A new account's report waits at the bottom of the queue: an
		// account made to push a player up (a sock puppet) must first
		// age past limits.new_account_age, as a real player's has.
		return reportsapi.Decision{Accept: true, Priority: 1}
	}
	// Other reporters count as established accounts only: twenty fresh
	// puppets must not lift a player to the top through another's report.
	p := 1 + max(f.DistinctReportersOfReportee-max(f.NewReportersOfReportee, 0), 0)
	return reportsapi.Decision{Accept: true, Priority: min(p, lim.MaxPriority)}
}
