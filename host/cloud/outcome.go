package cloud

import (
	"bytes"

	"github.com/honmaster/masterserver/host/server"
)

var (
	successFalse  = []byte(`s:7:"success";b:0;`)
	invalidStatus = []byte("invalid_request")
)

// replyOutcome is how a reply of the area counts in the metrics and the
// access log (server.Route.Outcome): a failure is success false, or the
// status call's bare word.
func replyOutcome(body []byte) string {
	if bytes.Contains(body, successFalse) || bytes.Equal(body, invalidStatus) {
		return server.OutcomeRefused
	}
	return ""
}
