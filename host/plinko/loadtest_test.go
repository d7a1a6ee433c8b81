package plinko_test

import (
	"testing"

	"github.com/honmaster/masterserver/host/cli/clitest"
)

// TestLoadTestPluginKilledMidRun kills the Plinko plugin while an open-loop
// load test of drops goes on: the drops it costs are counted by kind,
// nothing they were refused is charged (the run's balance check holds),
// and every scheduled operation is accounted for.
func TestLoadTestPluginKilledMidRun(t *testing.T) {
	ts := clitest.Start(t, clitest.LoadTestLimits)
	o := clitest.LoadTestOptions(t, ts, "drop=1")
	o.Accounts, o.Concurrency, o.Requests, o.Rate = 8, 8, 600, 200 // three seconds of schedule
	rep := ts.RunKillingPlugin(t, "plinko", o)
	drop := rep.Op("drop")
	if drop == nil || drop.OK+drop.Errors+rep.Unsent != 600 {
		t.Fatalf("ok + errors + unsent != 600: %+v, unsent %d", drop, rep.Unsent)
	}
	if drop.Errors == 0 || drop.Kinds["refused:5"] == 0 {
		t.Errorf("no drop failed with status 5 (plugin unavailable): %v", drop.Kinds)
	}
	if c := rep.Consistency; !c.OK() || c.BalancesChecked+c.Uncertain != 8 {
		t.Errorf("consistency: %s", c.Summary())
	}
	if got := rep.Server.Delta[`honmaster_plugin_restarts_total{area="plinko"}`]; got < 1 {
		t.Errorf("server restarts moved by %v", got)
	}
}
