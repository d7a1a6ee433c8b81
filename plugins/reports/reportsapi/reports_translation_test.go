package reportsapi

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/honmaster/masterserver/plugins/reports/reportsapi/internal/pb"
	"github.com/honmaster/masterserver/plugins/sdk"
)

func TestReportFactsRoundTrip(t *testing.T) {
	tests := []Facts{
		{},
		{Reporter: 1, Reportee: math.MaxUint32, SameOwner: true, Reason: ReasonAFK, TextLen: 210, Match: "123456",
			ReporterRecentCount: 19, ReporterToReporteeCount: 1, DistinctReportersOfReportee: 4, Limits: DefaultLimits,
			ReporterAge: 3 * time.Hour, NewReportersOfReportee: 2},
		{Reason: ReasonAFK, ReporterAge: time.Second, Limits: Limits{NewAccountAge: 7 * 24 * time.Hour}},
		// Converters keep invalid values; Validate judges them.
		{Reason: 9, TextLen: -1},
	}
	for _, f := range tests {
		got, err := reportFactsFromProto(reportFactsToProto(f))
		if err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		if got != f {
			t.Errorf("round trip %+v = %+v", f, got)
		}
	}
	if _, err := reportFactsFromProto(&pb.ReportFacts{Reason: 300}); !errors.Is(err, sdk.ErrInvalidFacts) {
		t.Errorf("reason 300: %v, want ErrInvalidFacts", err)
	}
	if _, err := reportFactsFromProto(&pb.ReportFacts{ReporterAgeSeconds: -1}); !errors.Is(err, sdk.ErrInvalidFacts) {
		t.Errorf("age -1 s: %v, want ErrInvalidFacts", err)
	}
	// Ages travel in whole seconds, rounded up: a known age is never 0.
	if m := reportFactsToProto(Facts{ReporterAge: time.Millisecond}); m.GetReporterAgeSeconds() != 1 {
		t.Errorf("1 ms of age travels as %d s", m.GetReporterAgeSeconds())
	}
}

func TestReportDecisionRoundTrip(t *testing.T) {
	for _, d := range []Decision{{}, {Accept: true, Priority: 10}, {Refusal: RefusalDailyLimit}} {
		got, err := reportDecisionFromProto(reportDecisionToProto(d))
		if err != nil || got != d {
			t.Errorf("round trip %+v = %+v, %v", d, got, err)
		}
	}
	if _, err := reportDecisionFromProto(&pb.ReportDecision{Refusal: 256}); !errors.Is(err, sdk.ErrInvalidDecision) {
		t.Errorf("refusal 256: %v, want ErrInvalidDecision", err)
	}
}

func TestReportFactsValidate(t *testing.T) {
	ok := Facts{Reporter: 1, Reportee: 2, Reason: ReasonChatAbuse}
	if err := ok.Validate(); err != nil {
		t.Errorf("valid facts: %v", err)
	}
	for _, f := range []Facts{{Reason: 0}, {Reason: 7}, {Reason: ReasonAFK, TextLen: -1}, {Reason: ReasonAFK, ReporterRecentCount: -2}, {Reason: ReasonAFK, ReporterAge: -time.Second},
		{Reason: ReasonAFK, DistinctReportersOfReportee: 1, NewReportersOfReportee: 2}} {
		if err := f.Validate(); !errors.Is(err, sdk.ErrInvalidFacts) {
			t.Errorf("%+v: %v, want ErrInvalidFacts", f, err)
		}
	}
}
