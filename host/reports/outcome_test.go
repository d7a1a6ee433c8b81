package reports

import (
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/wire"
)

// TestReplyOutcomes reads the outcome of the area's replies as the
// encoder writes them: a refused report counted as filed ("ok") before.
func TestReplyOutcomes(t *testing.T) {
	enc := func(v any) []byte {
		t.Helper()
		b, err := wire.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	failedWith := func(err error) []byte {
		return enc(ReportReply{ReportSuccess: ReportFailed, ReportEnabled: true, Message: Message(err)})
	}
	for _, tt := range []struct {
		name    string
		outcome func([]byte) string
		body    []byte
		want    string
	}{
		{"accepted", reportOutcome, enc(ReportReply{Success: true, ReportSuccess: ReportAccepted, ReportEnabled: true}), ""},
		{"refused by a limit", reportOutcome, failedWith(&RefusedError{reportsapi.RefusalDailyLimit}), server.OutcomeRefused},
		{"unknown player", reportOutcome, failedWith(ErrUnknownPlayer), server.OutcomeRefused},
		{"disabled", reportOutcome, enc(ReportReply{Success: true, ReportSuccess: ReportDisabled}), server.OutcomeRefused},
		{"plugin down", reportOutcome, failedWith(ErrUnavailable), server.OutcomeError},
		{"outcome unknown", reportOutcome, failedWith(actors.ErrTimeout), server.OutcomeError},
		{"report2 accepted", report2Outcome, enc(Report2Reply{"true", "2"}), ""},
		{"report2 none accepted", report2Outcome, enc(Report2Reply{"false"}), server.OutcomeRefused},
		{"status", infoOutcome, enc(InfoReply{Success: true}), ""},
		{"status, bad session", infoOutcome, enc(InfoReply{}), server.OutcomeRefused},
	} {
		if got := tt.outcome(tt.body); got != tt.want {
			t.Errorf("%s: %q, want %q (body %s)", tt.name, got, tt.want, tt.body)
		}
	}
}
