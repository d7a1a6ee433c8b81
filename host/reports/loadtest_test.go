package reports_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/loadtest"
)

// TestLoadTestFallbackRow: past the server's report limits the load test's
// report operation asks the status instead; the report row counts only the
// reports filed, as the server does, and the fallback row the rest.
func TestLoadTestFallbackRow(t *testing.T) {
	ts := clitest.Start(t, clitest.LoadTestLimits)
	o := clitest.LoadTestOptions(t, ts, "report=1")
	// One client: the pool hands it the two accounts in turn, ten
	// operations each. With a client per account, the operations split as
	// the clients' speeds do: on a loaded machine one account's first
	// report was slow while the other took the rest of the budget, and
	// only 3 reports were filed (CI, on PostgreSQL).
	o.Accounts, o.Concurrency, o.Requests = 2, 1, 20
	o.ServerPID = os.Getpid() // the server runs in the test process
	rep, err := loadtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.CPUUnavailable != "" {
		t.Errorf("server CPU: %s", rep.CPUUnavailable)
	}
	// Two accounts may each file 2 reports against the other (the
	// default limit per reportee); the 16 other operations fall back.
	if clitest.RowOK(rep, "report") != 4 || clitest.RowOK(rep, "report>reportinfo") != 16 {
		t.Errorf("report %d, report>reportinfo %d; want 4 and 16", clitest.RowOK(rep, "report"), clitest.RowOK(rep, "report>reportinfo"))
	}
	if got := rep.Server.Delta[`honmaster_http_requests_total{outcome="ok",route="/master/report/report"}`]; got != 4 {
		t.Errorf("server filed %v reports, want 4", got)
	}
	if !strings.HasPrefix(rep.Stopped, "its --requests budget") {
		t.Errorf("stopped %q, want the requests budget", rep.Stopped)
	}
}
