package reports

import (
	"fmt"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/wire"
)

// TestANotServedReportSaysSo: a report that was read but not served
// (cluster mode: its account's node did not answer, or this node is not
// serving) says it may have been filed, or to send it again later: never
// "The report could not be read.".
func TestANotServedReportSaysSo(t *testing.T) {
	f := newAreaFixture(t)
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w: the account's node did not answer in time", actors.ErrTimeout), msgOutcomeUnknown},
		{fmt.Errorf("%w: this node is not serving", actors.ErrExpired), msgNotSent},
	} {
		for _, rt := range f.area.Routes() {
			if rt.Path != PathReport {
				continue
			}
			r := &wire.Request{Method: "POST", Path: PathReport}
			body := string(rt.Fail(&server.NotServedError{Request: r, Err: tc.err}).Body)
			if !strings.Contains(body, fmt.Sprintf("%q", tc.want)) {
				t.Errorf("report not served (%v): %q; want %q", tc.err, body, tc.want)
			}
		}
	}
}
