package matches_test

import (
	"testing"

	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/plugins/matches/matchesapi"
)

// TestAreaReference: the area's endpoints.md is what its routes and
// load-test operations render (HONMASTER_UPDATE_DOCS=1 rewrites it).
func TestAreaReference(t *testing.T) { clitest.CheckAreaReference(t, matchesapi.Area) }
