package cli_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/cli"
)

// TestLoadTestLogin runs the built-in load tester, bounded to a few
// requests, against a real server.
func TestLoadTest(t *testing.T) {
	ts := start(t, nil)
	for _, scenario := range []string{"login", "drop", "cloud"} {
		t.Run(scenario, func(t *testing.T) {
			res, err := cli.LoadTest(context.Background(), cli.LoadOptions{Target: ts.Client.Base, Accounts: 4, Scenario: scenario,
				Requests: 12, Duration: 30 * time.Second, DataDir: ts.DataDir}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if res.OK != 12 || res.Failed != 0 {
				t.Fatalf("%s", res)
			}
			if res.P50 <= 0 || res.Max < res.P99 || res.P99 < res.P50 {
				t.Errorf("latency figures out of order: %s", res)
			}
		})
	}
}
