package cli

import (
	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/server"
	bundledguides "github.com/honmaster/masterserver/plugins/guides"
	bundledplinko "github.com/honmaster/masterserver/plugins/plinko"
	bundledreports "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// The areas built into the host: their routes need the server's own state
// (the metrics of drops, the services the operator commands and a reload
// reach), so they register here, with the same registry any other area
// registers with from its own package (host/area).
func init() {
	builtIn := func(build func(*App, sdk.Caller) ([]server.Route, error)) func(hostarea.Env) ([]server.Route, error) {
		return func(e hostarea.Env) ([]server.Route, error) { return build(e.Host.(*App), e.Plugin) }
	}
	hostarea.Register(hostarea.Module{Area: sdk.AreaPlinko, Bundled: bundledplinko.Plugin, Routes: builtIn(plinkoRoutes)})
	hostarea.Register(hostarea.Module{Area: sdk.AreaGuides, Bundled: bundledguides.Plugin, Routes: builtIn(guidesRoutes)})
	hostarea.Register(hostarea.Module{Area: sdk.AreaReports, Bundled: bundledreports.Plugin, Routes: builtIn(reportsRoutes)})
}
