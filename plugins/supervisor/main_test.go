package supervisor_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/honmaster/masterserver/plugins/plinko"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// helperEnv selects a helper role when the test binary re-executes itself.
const helperEnv = "SUPERVISOR_TEST_HELPER"

// TestMain lets the test binary play the plugin (and, for the orphan test,
// the host): the supervisor re-executes it with helperEnv set, just as the
// real host re-executes itself as "honmaster plugin plinko".
func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "plinko":
		plinko.Serve()
	case "badodds":
		sdk.Serve(plinkoapi.WithOdds(plinkoapi.Odds{0.5, 0.5, 0.5}).Plugin())
	case "nodecision":
		p := &sdk.Plugin{Name: "other"}
		sdk.Handle(p, otherDecision, func(context.Context, sdk.Call[plinkoapi.DropFacts]) (sdk.Result[plinkoapi.DropDecision], error) {
			return sdk.Result[plinkoapi.DropDecision]{}, nil
		})
		sdk.Serve(p)
	case "crash":
		fmt.Fprintln(os.Stderr, "helper: crashing at start")
		os.Exit(3)
	case "hangdecide": // answers pings, never a decision
		p := &sdk.Plugin{Name: "hangdecide"}
		sdk.Handle(p, plinkoapi.Drop, func(context.Context, sdk.Call[plinkoapi.DropFacts]) (sdk.Result[plinkoapi.DropDecision], error) {
			select {}
		})
		sdk.Serve(p)
	case "giantreply": // a state far past what any reply may hold
		p := &sdk.Plugin{Name: "giantreply"}
		sdk.Handle(p, plinkoapi.Drop, func(context.Context, sdk.Call[plinkoapi.DropFacts]) (sdk.Result[plinkoapi.DropDecision], error) {
			return sdk.Result[plinkoapi.DropDecision]{State: make([]byte, 70<<20)}, nil
		})
		sdk.Serve(p)
	case "childstderr": // starts a helper that holds its stderr open, then serves
		c := exec.Command("sleep", "600")
		c.Stderr = os.Stderr
		if os.Getenv("HELPER_OWN_SESSION") != "" {
			setsid(c) // out of the plugin's process group: the supervisor's kill misses it
		}
		if err := c.Start(); err != nil {
			os.Exit(4)
		}
		f, err := os.OpenFile(os.Getenv("HELPER_PIDFILE"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			os.Exit(5)
		}
		fmt.Fprintln(f, c.Process.Pid)
		f.Close()
		plinko.Serve()
	default:
		runHelper(os.Getenv(helperEnv)) // platform-specific roles
	}
	os.Exit(0)
}

// otherDecision is a decision of a test-only area, so that a plugin can
// serve something other than plinko.drop.
var otherDecision = sdk.NewDecision(sdk.DecisionDef[plinkoapi.DropFacts, plinkoapi.DropDecision]{
	Area: sdk.RegisterArea("supervisortest"), Name: "other", Version: 1,
	Facts:  sdk.Codec[plinkoapi.DropFacts]{Marshal: func(plinkoapi.DropFacts) ([]byte, error) { return nil, nil }},
	Result: sdk.Codec[plinkoapi.DropDecision]{Marshal: func(plinkoapi.DropDecision) ([]byte, error) { return nil, nil }},
	Check:  func(plinkoapi.DropFacts, plinkoapi.DropDecision) error { return nil },
})
