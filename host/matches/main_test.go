package matches_test

import (
	"testing"

	"github.com/honmaster/masterserver/host/cli/clitest"
)

// TestMain lets the test binary act as the host binary in plugin mode: the
// server under test re-executes it to run the bundled plugins.
func TestMain(m *testing.M) { clitest.Main(m) }
