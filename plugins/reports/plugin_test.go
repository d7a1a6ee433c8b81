package reports_test

import (
	"context"
	"errors"
	"testing"

	"github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// TestPluginOverGRPC runs the bundled plugin behind a real gRPC connection:
// facts and decisions survive the codecs and the decision is Decide's.
func TestPluginOverGRPC(t *testing.T) {
	c := sdk.TestClient(t, reports.Plugin())
	ctx := context.Background()
	tests := []reportsapi.Facts{
		{Reporter: 1, Reportee: 2, Reason: reportsapi.ReasonAFK, TextLen: 20, Match: "m-1", DistinctReportersOfReportee: 3},
		{Reporter: 1, Reportee: 1, Reason: reportsapi.ReasonChatAbuse},
		{Reporter: 1, Reportee: 2, Reason: reportsapi.ReasonFeeding, ReporterRecentCount: 3, Limits: reportsapi.Limits{PerDay: 3}},
		{Reporter: 1, Reportee: 2, Reason: reportsapi.ReasonFeeding, ReporterToReporteeCount: 2},
	}
	for _, f := range tests {
		res, err := reportsapi.Assess.Decide(ctx, c, sdk.Call[reportsapi.Facts]{Facts: f})
		if err != nil {
			t.Fatalf("Decide(%+v): %v", f, err)
		}
		if want := reports.Decide(f); res.Decision != want {
			t.Errorf("Decide(%+v) over gRPC = %+v, want %+v", f, res.Decision, want)
		}
		if len(res.State) != 0 {
			t.Errorf("bundled plugin returned state %q", res.State)
		}
	}
}

// TestContractChecks: the host refuses malformed facts before asking and a
// decision that breaks the table after, whatever the plugin.
func TestContractChecks(t *testing.T) {
	ctx := context.Background()
	ok := reportsapi.Facts{Reporter: 1, Reportee: 2, Reason: reportsapi.ReasonChatAbuse}
	if _, err := reportsapi.Assess.Decide(ctx, reports.Plugin(), sdk.Call[reportsapi.Facts]{Facts: reportsapi.Facts{Reporter: 1, Reportee: 2, Reason: 9}}); !errors.Is(err, sdk.ErrInvalidFacts) {
		t.Errorf("unknown reason: err = %v, want ErrInvalidFacts", err)
	}
	bad := []reportsapi.Decision{
		{Accept: true},               // no priority
		{Accept: true, Priority: 11}, // over MaxPriority
		{Accept: true, Priority: 1, Refusal: reportsapi.RefusalRule},
		{Refusal: reportsapi.RefusalNone}, // refused without reason
		{Refusal: 42},                     // unknown refusal
		{Refusal: reportsapi.RefusalRule, Priority: 2},
	}
	for _, d := range bad {
		p := sdk.Mock(reportsapi.Assess, func(context.Context, sdk.Call[reportsapi.Facts]) (sdk.Result[reportsapi.Decision], error) {
			return sdk.Result[reportsapi.Decision]{Decision: d}, nil
		})
		if _, err := reportsapi.Assess.Decide(ctx, sdk.TestClient(t, p), sdk.Call[reportsapi.Facts]{Facts: ok}); !errors.Is(err, sdk.ErrInvalidDecision) {
			t.Errorf("decision %+v: err = %v, want ErrInvalidDecision", d, err)
		}
	}
}
