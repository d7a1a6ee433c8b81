package guides_test

import (
	"testing"

	"github.com/honmaster/masterserver/host/cli/clitest"
)

// TestLoadTestPluginKilledMidRun kills the guides plugin while an
// open-loop load test votes: the votes it costs are counted by kind, and a
// refused vote counts nowhere, so the vote check still holds and removing
// the accounts takes every counted vote back out.
func TestLoadTestPluginKilledMidRun(t *testing.T) {
	ts := clitest.StartDemo(t, clitest.LoadTestLimits)
	o := clitest.LoadTestOptions(t, ts, "vote=3,guide=1")
	o.Accounts, o.Concurrency, o.Requests, o.Rate = 6, 6, 600, 200 // three seconds of schedule
	rep := ts.RunKillingPlugin(t, "guides", o)
	vote := rep.Op("vote")
	if vote == nil || vote.Errors == 0 || vote.Kinds["refused:guides_unavailable"] == 0 {
		t.Errorf("no vote failed as guides_unavailable: %+v", vote)
	}
	if ok, errs := rep.Total(); ok+errs+rep.Unsent != 600 {
		t.Errorf("ok %d + errors %d + unsent %d != 600", ok, errs, rep.Unsent)
	}
	if c := rep.Consistency; !c.OK() || c.Areas["guides votes"] == nil || c.Areas["guides votes"].Checked == 0 ||
		c.Areas["guides votes restored"] == nil || c.Areas["guides votes restored"].Checked == 0 {
		t.Errorf("consistency: %s", c.Summary())
	}
	if rep.Cleanup.Removed != 6 {
		t.Errorf("cleanup: %s", rep.Cleanup.Summary())
	}
}
