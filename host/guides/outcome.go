package guides

import (
	"bytes"

	"github.com/honmaster/masterserver/host/server"
)

var (
	guidesFailed = []byte(`s:7:"success";i:0;`)
	noGuides     = []byte(`s:6:"errors";s:15:"no_guides_found";`)
)

// replyOutcome is how a reply of the area counts in the metrics and the
// access log (server.Route.Outcome). Every guide failure is the
// no_guides_found shape with success 0; "no guides found" itself is an
// answer, not a refusal.
func replyOutcome(body []byte) string {
	if bytes.Contains(body, guidesFailed) && !bytes.Contains(body, noGuides) {
		return server.OutcomeRefused
	}
	return ""
}
