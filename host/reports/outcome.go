package reports

import (
	"bytes"

	"github.com/honmaster/masterserver/host/server"
)

// Reply bodies the area's outcomes are read from (server.Route.Outcome):
// every failure of the area is HTTP 200.
var (
	reportDisabled = []byte(`s:14:"report_success";i:3;`)
	report2None    = []byte(`a:1:{i:0;s:5:"false";}`)
	infoFailed     = []byte(`s:7:"success";b:0;`)
)

// reportOutcome is how a /master/report/report reply counts in the
// metrics (honmaster_reports_filed_total among them) and the access log:
// by its message (replies), and reporting disabled as a refusal.
func reportOutcome(body []byte) string {
	if bytes.Contains(body, reportDisabled) {
		return server.OutcomeRefused
	}
	return replies.Outcome(body)
}

// report2Outcome: /rap/report2.php answers ["false"] when no report of the
// request was accepted.
func report2Outcome(body []byte) string {
	if bytes.Equal(body, report2None) {
		return server.OutcomeRefused
	}
	return ""
}

// infoOutcome: the reporting status answers success false when the
// request or its session is bad.
func infoOutcome(body []byte) string {
	if bytes.Contains(body, infoFailed) {
		return server.OutcomeRefused
	}
	return ""
}
