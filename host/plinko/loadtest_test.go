package plinko_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/loadtest"
	"github.com/honmaster/masterserver/host/plinko"
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
	if n := drop.Kinds["refused:13"]; n != 0 {
		t.Errorf("%d drops refused as too many (status 13): LoadTestLimits must turn [plinko] write_burst off", n)
	}
	if c := rep.Consistency; !c.OK() || c.BalancesChecked+c.Uncertain != 8 {
		t.Errorf("consistency: %s", c.Summary())
	}
	if got := rep.Server.Delta[`honmaster_plugin_restarts_total{area="plinko"}`]; got < 1 {
		t.Errorf("server restarts moved by %v", got)
	}
}

// TestLoadTestPurchaseFallbackRow: once an account owns the whole demo
// exchange, the load test's purchase reads the exchange list instead; the
// purchase row counts only the purchases the server made, the
// purchase>exchange row the rest, and the balances still check.
func TestLoadTestPurchaseFallbackRow(t *testing.T) {
	ts := clitest.StartDemo(t, clitest.LoadTestLimits)
	o := clitest.LoadTestOptions(t, ts, "purchase=1")
	o.Accounts, o.Concurrency, o.Requests = 1, 1, 20
	rep, err := loadtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	bought, listed := clitest.RowOK(rep, "purchase"), clitest.RowOK(rep, "purchase>exchange")
	t.Logf("purchase %d, purchase>exchange %d", bought, listed)
	if bought < 1 || listed < 1 || bought+listed != 20 {
		t.Errorf("purchase %d, purchase>exchange %d: want both, 20 in all", bought, listed)
	}
	made := rep.Server.Delta[`honmaster_http_requests_total{outcome="ok",route="/master/ticketexchange/purchase/"}`]
	if int64(made) != bought {
		t.Errorf("the server made %v purchases, the report says %d", made, bought)
	}
	if c := rep.Consistency; !c.OK() || c.BalancesChecked != 1 {
		t.Errorf("consistency: %s", c.Summary())
	}
}

// TestLoadTestPastTheWriteRate: a load test against a server that keeps
// its Plinko write limits (here 30 per account, then one an hour) gets
// exactly the drops past them refused with status 13, which charged
// nothing (the run's balance check holds), and its report names the
// setting; LoadTestLimits, as bench/loadtest.toml, turns them off. One
// account: the tester hands out whichever account is free, so with more
// the drops are not shared evenly.
func TestLoadTestPastTheWriteRate(t *testing.T) {
	ts := clitest.Start(t, func(c *config.Config) {
		clitest.LoadTestLimits(c)
		s := plinko.SettingsOf(c)
		s.WriteBurst, s.WriteEvery = 30, config.Duration{Duration: time.Hour}
		config.SetSection(c, "plinko", s)
	})
	o := clitest.LoadTestOptions(t, ts, "drop=1")
	o.Accounts, o.Concurrency, o.Requests = 1, 1, 50
	rep, err := loadtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	drop := rep.Op("drop")
	if drop == nil || drop.OK != 30 || drop.Kinds["refused:13"] != 20 {
		t.Fatalf("drops: %+v; want 30 ok and 20 refused:13", drop)
	}
	if first := drop.FirstErrors["refused:13"]; !strings.Contains(first, "write_burst") {
		t.Errorf("the first refused:13 does not tell the operator the setting: %q", first)
	}
	if c := rep.Consistency; !c.OK() || c.BalancesChecked != 1 {
		t.Errorf("consistency: %s", c.Summary())
	}
}
