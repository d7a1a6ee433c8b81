package reports

import (
	"context"
	"math/rand/v2"
	"net/url"
	"strconv"

	"github.com/honmaster/masterserver/host/loadtest"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
)

// The area's load-test operations ("honmaster loadtest --mix report=1,...").
func init() {
	loadtest.RegisterArea(loadtest.Area{Name: areaName, Operations: []loadtest.Operation{
		{Name: "report", Requests: 1, Do: loadReport,
			Fallback: &loadtest.Fallback{Row: loadReportStatus, As: "reportinfo", Why: "past the report limits: asked the reporting status instead"},
			Doc: "files a report (/master/report/report) against another test account, within the server's default limits " +
				"(20 a day, 2 per reportee); past them asks reportinforequest instead, counted as " + loadReportStatus + ". It must be accepted (report_success 1)"},
		{Name: "reportinfo", Requests: 1, Reads: true, Do: loadReportInfo,
			Doc: "reportinforequest (the reporting status the client asks at login): success, status 0"},
	}})
}

// loadReportStatus is the fallback row of a report past the limits that
// asked the reporting status instead.
const loadReportStatus = "report>reportinfo"

// loadFiled counts the reports an account filed in the run.
type loadFiled struct{ n int }

// loadBudget is how many reports an account may file: the server's default
// limits (reportsapi.DefaultLimits: PerDay in 24 hours, PerReportee against
// one player) with the run's other accounts as reportees. Past it the
// report operation asks for the reporting status instead, as the purchase
// operation looks at the list once everything is owned.
func loadBudget(accounts int) int {
	lim := reportsapi.DefaultLimits
	return min(lim.PerDay, lim.PerReportee*(accounts-1))
}

// loadReport files one report (/master/report/report, the client's in-game
// path) against another test account, within the server's default limits;
// the reply must accept it (success true, report_success 1).
func loadReport(ctx context.Context, e *loadtest.Env, a *loadtest.Account, rng *rand.Rand) error {
	logins := e.Logins()
	n := len(logins)
	filed := loadtest.AccountState(a, areaName, func() *loadFiled { return &loadFiled{} })
	if filed.n >= loadBudget(n) {
		return e.Fallback(ctx, a, rng)
	}
	// Two reports against each of the next accounts in turn.
	reportee := logins[(a.Index()+1+filed.n/reportsapi.DefaultLimits.PerReportee)%n]
	filed.n++
	arr, err := e.Post(ctx, PathReport, MasterReportForm(a.ID(), a.Cookie(), reportee, reportsapi.ReasonAFK, "load test "+e.Tag()), 200)
	if err != nil {
		return err
	}
	code, _ := arr.Int("report_success")
	if ok, _ := arr.Bool("success"); !ok || code != 1 {
		msg, _ := arr.String("message")
		return loadtest.Fail("refused:report_"+strconv.FormatInt(code, 10), "report of %s: %s", reportee, msg)
	}
	return nil
}

// loadReportInfo asks for the account's reporting status
// (/master/report/reportinforequest, sent by the client at login): success,
// and the normal status of an account no moderator has judged.
func loadReportInfo(ctx context.Context, e *loadtest.Env, a *loadtest.Account, _ *rand.Rand) error {
	arr, err := e.Post(ctx, PathReportInfo, url.Values{"account_id": {a.ID()}, "cookie": {a.Cookie()}}, 200)
	if err != nil {
		return err
	}
	if ok, _ := arr.Bool("success"); !ok {
		return loadtest.Fail("refused:reportinfo", "reportinforequest answered success false")
	}
	if st, ok := arr.Int("status"); !ok || st != 0 {
		return loadtest.Fail("record", "reportinforequest status %d, want 0 (normal)", st)
	}
	return nil
}
