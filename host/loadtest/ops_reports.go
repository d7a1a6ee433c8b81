package loadtest

import (
	"context"
	"math/rand/v2"
	"net/url"
	"strconv"

	"github.com/honmaster/masterserver/host/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
)

// reportBudget is how many reports an account may file: the server's
// default limits (reportsapi.DefaultLimits: PerDay in 24 hours, PerReportee
// against one player) with the run's other accounts as reportees. Past it
// the report operation asks for the reporting status instead, as the
// purchase operation looks at the list once everything is owned.
func reportBudget(accounts int) int {
	lim := reportsapi.DefaultLimits
	return min(lim.PerDay, lim.PerReportee*(accounts-1))
}

// opReport files one report (/master/report/report, the client's
// in-game path) against another test account, within the server's
// default limits; the reply must accept it (success true, report_success
// 1).
func opReport(ctx context.Context, e *env, a *account, rng *rand.Rand) error {
	n := len(e.logins)
	if a.reports >= reportBudget(n) {
		a.fellBack = reportStatus
		return opReportInfo(ctx, e, a, rng)
	}
	// Two reports against each of the next accounts in turn.
	reportee := e.logins[(a.index+1+a.reports/reportsapi.DefaultLimits.PerReportee)%n]
	a.reports++
	arr, _, err := post(ctx, e.c, reports.PathReport, reports.MasterReportForm(a.id, a.sess.Cookie, reportee, reportsapi.ReasonAFK, "load test "+e.run), 200)
	if err != nil {
		return err
	}
	code, _ := arr.Int("report_success")
	if ok, _ := arr.Bool("success"); !ok || code != 1 {
		msg, _ := arr.String("message")
		return fail("refused:report_"+strconv.FormatInt(code, 10), "report of %s: %s", reportee, msg)
	}
	return nil
}

// opReportInfo asks for the account's reporting status
// (/master/report/reportinforequest, sent by the client at login): success,
// and the normal status of an account no moderator has judged.
func opReportInfo(ctx context.Context, e *env, a *account, _ *rand.Rand) error {
	arr, _, err := post(ctx, e.c, reports.PathReportInfo, url.Values{"account_id": {a.id}, "cookie": {a.sess.Cookie}}, 200)
	if err != nil {
		return err
	}
	if ok, _ := arr.Bool("success"); !ok {
		return fail("refused:reportinfo", "reportinforequest answered success false")
	}
	if st, ok := arr.Int("status"); !ok || st != 0 {
		return fail("record", "reportinforequest status %d, want 0 (normal)", st)
	}
	return nil
}
