package plinko_test

import (
	"os"
	"testing"

	"github.com/honmaster/masterserver/host/cli"
)

// TestMain lets the test binary act as the host binary in plugin mode: a
// server started with cli.Start re-executes it to run the bundled plugin.
func TestMain(m *testing.M) {
	if cli.PluginMode(os.Args[1:]) {
		return
	}
	code := m.Run()
	stopBenchFixture()
	os.Exit(code)
}
