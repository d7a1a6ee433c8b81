package reports_test

import (
	"context"
	"errors"
	"testing"

	"github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// TestPluginOverGRPC runs the bundled plugin behind a real gRPC connection:
// facts and decisions survive the codecs and the decision is Decide's.
func TestPluginOverGRPC(t *testing.T) {
	c := sdk.TestClient(t, reports.Plugin())
	ctx := context.Background()
	tests := []reports.Facts{
		{Reporter: 1, Reportee: 2, Reason: reports.ReasonAFK, TextLen: 20, Match: "m-1", DistinctReportersOfReportee: 3},
		{Reporter: 1, Reportee: 1, Reason: reports.ReasonChatAbuse},
		{Reporter: 1, Reportee: 2, Reason: reports.ReasonFeeding, ReporterRecentCount: 3, Limits: reports.Limits{PerDay: 3}},
		{Reporter: 1, Reportee: 2, Reason: reports.ReasonFeeding, ReporterToReporteeCount: 2},
	}
	for _, f := range tests {
		res, err := sdk.ReportsAssess.Decide(ctx, c, sdk.Call[reports.Facts]{Facts: f})
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
	ok := reports.Facts{Reporter: 1, Reportee: 2, Reason: reports.ReasonChatAbuse}
	if _, err := sdk.ReportsAssess.Decide(ctx, reports.Plugin(), sdk.Call[reports.Facts]{Facts: reports.Facts{Reporter: 1, Reportee: 2, Reason: 9}}); !errors.Is(err, sdk.ErrInvalidFacts) {
		t.Errorf("unknown reason: err = %v, want ErrInvalidFacts", err)
	}
	bad := []reports.Decision{
		{Accept: true},               // no priority
		{Accept: true, Priority: 11}, // over MaxPriority
		{Accept: true, Priority: 1, Refusal: reports.RefusalRule},
		{Refusal: reports.RefusalNone}, // refused without reason
		{Refusal: 42},                  // unknown refusal
		{Refusal: reports.RefusalRule, Priority: 2},
	}
	for _, d := range bad {
		p := sdk.Mock(sdk.ReportsAssess, func(context.Context, sdk.Call[reports.Facts]) (sdk.Result[reports.Decision], error) {
			return sdk.Result[reports.Decision]{Decision: d}, nil
		})
		if _, err := sdk.ReportsAssess.Decide(ctx, sdk.TestClient(t, p), sdk.Call[reports.Facts]{Facts: ok}); !errors.Is(err, sdk.ErrInvalidDecision) {
			t.Errorf("decision %+v: err = %v, want ErrInvalidDecision", d, err)
		}
	}
}
