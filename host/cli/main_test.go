package cli_test

import (
	"os"
	"testing"

	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/plugins/examples/guidesrank"
	"github.com/honmaster/masterserver/plugins/examples/pity"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// pluginRoleEnv makes the test binary serve an example plugin, so tests can
// configure it as an external plugin without building it.
const pluginRoleEnv = "CLI_TEST_PLUGIN"

// TestMain lets the test binary act as the host binary in plugin mode: the
// server under test re-executes it to run the bundled plugins (and, with
// pluginRoleEnv set, the example plugins run as external ones).
func TestMain(m *testing.M) {
	switch os.Getenv(pluginRoleEnv) {
	case "pity":
		pity.Serve()
		return
	case "guidesrank":
		guidesrank.Serve()
		return
	case "guidesstrict":
		sdk.Serve(strictGuidesPlugin())
		return
	case "holddb":
		holdDataDir()
		return
	}
	clitest.Main(m, removeHostBin)
}
