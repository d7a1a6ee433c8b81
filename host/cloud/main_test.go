package cloud_test

import (
	"os"
	"testing"

	"github.com/honmaster/masterserver/host/cli"
)

// TestMain lets the test binary act as the host binary in plugin mode: the
// server under test re-executes it to run the bundled plugins.
func TestMain(m *testing.M) {
	if cli.PluginMode(os.Args[1:]) {
		return
	}
	os.Exit(m.Run())
}
