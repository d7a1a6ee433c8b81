package cli_test

import (
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli/clitest"
)

// TestALoadTestWithFailedOperationsFails: a run in which operations failed
// (logins refused past the server's per-address limit) ended as a pass
// (exit 0): the command judged the run by the consistency check alone,
// which checks the balances of what succeeded. It exits 1 now, naming
// the failures; --allow-errors (a failover test, a node killed on
// purpose) leaves the verdict to the consistency check. (From a review
// of the load tester; failed before.)
func TestALoadTestWithFailedOperationsFails(t *testing.T) {
	limited := func(c *config.Config) {
		clitest.LoadTestLimits(c)
		c.Limits.LoginsAddress = config.Rate{Burst: 5, Every: config.Duration{Duration: time.Hour}}
	}
	run := func(extra ...string) (int, string, string) {
		ts := start(t, limited) // a server of its own: the first run spends the address's logins
		return ts.Run(append([]string{"loadtest", "--target", ts.Client.Base, "--operator", "http://" + ts.Runtime.OperatorAddr.String(),
			"--mix", "login=1", "--accounts", "1", "--concurrency", "1", "--requests", "20"}, extra...)...)
	}
	code, out, errOut := run()
	if !strings.Contains(out, "errors refused:login") {
		t.Fatalf("expected refused logins in the report:\n%s\n%s", out, errOut)
	}
	if code != 1 || !strings.Contains(errOut, "operations failed") || !strings.Contains(errOut, "--allow-errors") {
		t.Errorf("exit %d although operations failed; stderr:\n%s", code, errOut)
	}
	if code, out, errOut := run("--allow-errors"); code != 0 {
		t.Errorf("with --allow-errors: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestALoadTestThatRanNothingFails: a run that did no operation at all (a
// sequential run whose --duration leaves each phase no time) was a pass.
// (From a review of the load tester; failed before.)
func TestALoadTestThatRanNothingFails(t *testing.T) {
	ts := start(t, clitest.LoadTestLimits)
	code, out, errOut := ts.Run("loadtest", "--target", ts.Client.Base, "--operator", "http://"+ts.Runtime.OperatorAddr.String(),
		"--mix", "noop=1,login=1", "--sequential", "--accounts", "1", "--concurrency", "1", "--requests", "20", "--duration", "1ns",
		"--allow-errors")
	if !strings.Contains(out, "0 ok, 0 errors") {
		t.Fatalf("report:\n%s", out)
	}
	if code != 1 || !strings.Contains(errOut, "no operation") {
		t.Errorf("exit %d although no operation ran; stderr:\n%s", code, errOut)
	}
}
