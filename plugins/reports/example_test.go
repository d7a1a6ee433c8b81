package reports_test

import (
	"fmt"

	"github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
)

// A report from /master/report/report with type 5 (the client's code for
// AFK), against a player two others have already reported.
func ExampleDecide() {
	reason, _ := reportsapi.ReasonFromCode(reportsapi.CodesMaster, 5)
	d := reports.Decide(reportsapi.Facts{
		Reporter: 1, Reportee: 2, Reason: reason, TextLen: 42,
		ReporterRecentCount: 3, DistinctReportersOfReportee: 2,
	})
	fmt.Println(reason.Title(), d.Accept, d.Priority)

	d = reports.Decide(reportsapi.Facts{Reporter: 1, Reportee: 2, Reason: reason, ReporterToReporteeCount: 2})
	fmt.Println(d.Accept, d.Refusal, d.Refusal.Message())
	// Output:
	// Refusal to Participate / Avoiding AFK true 3
	// false reportee_limit You have already reported this player today.
}
