package reports

import (
	"bytes"

	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/wire"
)

// Reply bodies the area's outcomes are read from (server.Route.Outcome):
// every failure of the area is HTTP 200.
var (
	reportFailed   = []byte(`s:14:"report_success";i:2;`)
	reportDisabled = []byte(`s:14:"report_success";i:3;`)
	report2None    = []byte(`a:1:{i:0;s:5:"false";}`)
	infoFailed     = []byte(`s:7:"success";b:0;`)
)

// serverSideMessages are the failure messages of the server's own making
// (Message): counted as errors, the others as refusals.
var serverSideMessages = func() [][]byte {
	var out [][]byte
	for _, m := range []string{msgOutcomeUnknown, msgNotChecked, msgStorageFull, msgNotSent} {
		b, err := wire.Marshal(m)
		if err == nil {
			out = append(out, b)
		}
	}
	return out
}()

// reportOutcome is how a /master/report/report reply counts in the
// metrics (honmaster_reports_filed_total among them) and the access log: a
// refused report was counted as filed, the reply being HTTP 200.
func reportOutcome(body []byte) string {
	switch {
	case bytes.Contains(body, reportDisabled):
		return server.OutcomeRefused
	case bytes.Contains(body, reportFailed):
		for _, m := range serverSideMessages {
			if bytes.Contains(body, m) {
				return server.OutcomeError
			}
		}
		return server.OutcomeRefused
	}
	return ""
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
