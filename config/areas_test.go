package config

// The plugin areas the tests configure ([plugins.plinko], ...) are
// registered by their contract packages, which the host binary imports;
// the SDK alone knows none.
import (
	_ "github.com/honmaster/masterserver/plugins/guides/guidesapi"
	_ "github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	_ "github.com/honmaster/masterserver/plugins/reports/reportsapi"
)
