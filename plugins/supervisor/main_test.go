package supervisor_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/honmaster/masterserver/plugins/plinko"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// helperEnv selects a helper role when the test binary re-executes itself.
const helperEnv = "SUPERVISOR_TEST_HELPER"

// TestMain lets the test binary play the plugin (and, for the orphan test,
// the host): the supervisor re-executes it with helperEnv set, just as the
// real host re-executes itself as "host plugin plinko".
func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "plinko":
		plinko.Serve()
	case "badodds":
		sdk.Serve(sdk.ServeOpts{Plinko: sdk.PlinkoWithOdds(sdk.Odds{0.5, 0.5, 0.5})})
	case "crash":
		fmt.Fprintln(os.Stderr, "helper: crashing at start")
		os.Exit(3)
	default:
		runHelper(os.Getenv(helperEnv)) // platform-specific roles
	}
	os.Exit(0)
}
