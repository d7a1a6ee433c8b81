package reports

import "github.com/honmaster/masterserver/storage"

// IndexEntry is one entry of the per-reportee index: the reporter's actor
// writes it in the same commit as the report, so the index never names a
// report that does not exist.
type IndexEntry struct {
	Report   ReportID // its Reporter is the reporter
	Reportee storage.AccountID
}

// Join attaches each report's resolution (by ID, from the reportees'
// records) and returns the reports in the given order.
func Join(rs []Report, resolutions map[ReportID]Resolution) []Report {
	out := make([]Report, len(rs))
	for i, r := range rs {
		if res, ok := resolutions[r.ID]; ok {
			r.Resolution = &res
		} else {
			r.Resolution = nil
		}
		out[i] = r
	}
	return out
}

// OtherReporters counts the distinct reporters other than self with an
// open report (one without a resolution) among a reportee's index
// entries. It is Batch.OtherReporters for one reportee.
func OtherReporters(entries []IndexEntry, resolved func(ReportID) bool, self storage.AccountID) int {
	return len(DistinctOtherReporters(entries, resolved, self))
}

// DistinctOtherReporters returns those reporters (OtherReporters), in the
// order of their first entry.
func DistinctOtherReporters(entries []IndexEntry, resolved func(ReportID) bool, self storage.AccountID) []storage.AccountID {
	seen := map[storage.AccountID]bool{}
	var out []storage.AccountID
	for _, e := range entries {
		if e.Report.Reporter == self || seen[e.Report.Reporter] {
			continue
		}
		if resolved != nil && resolved(e.Report) {
			continue
		}
		seen[e.Report.Reporter] = true
		out = append(out, e.Report.Reporter)
	}
	return out
}
