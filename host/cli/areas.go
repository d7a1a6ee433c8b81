package cli

import (
	"context"
	"encoding/json"
	"io"
	"slices"

	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/server"
	bundledguides "github.com/honmaster/masterserver/plugins/guides"
	"github.com/honmaster/masterserver/plugins/guides/guidesapi"
	bundledplinko "github.com/honmaster/masterserver/plugins/plinko"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	bundledreports "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
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
	hostarea.Register(hostarea.Module{Area: plinkoapi.Area, Bundled: bundledplinko.Plugin, Routes: builtIn(plinkoRoutes)})
	hostarea.Register(hostarea.Module{Area: guidesapi.Area, Bundled: bundledguides.Plugin, Routes: builtIn(guidesRoutes)})
	hostarea.Register(hostarea.Module{Area: reportsapi.Area, Bundled: bundledreports.Plugin, Routes: builtIn(reportsRoutes)})
}

// allOps are the operator commands: the host's (ops) and every registered
// area's (hostarea.Command), read when a command is looked up, after every
// area's package has registered itself.
func allOps() []op {
	out := slices.Clone(ops)
	for _, m := range hostarea.Modules() {
		for _, c := range m.Commands {
			out = append(out, op{name: c.Name, usage: c.Usage,
				parse: func(args []string) (Request, error) {
					fs := newFlags(c.Name, nil)
					r := &areaRequest{name: c.Name, req: c.Flags(fs)}
					if err := parse(fs, args); err != nil {
						return nil, err
					}
					return checked(r)
				},
				empty: func() Request { return &areaRequest{name: c.Name, req: c.Flags(newFlags(c.Name, nil))} }})
		}
	}
	return out
}

// areaRequest is a Request of an area's command: the area's request, run
// with what the area may use of the App.
type areaRequest struct {
	name string
	req  hostarea.CommandRequest
}

func (r *areaRequest) Op() string { return r.name }

func (r *areaRequest) Validate() error {
	if err := r.req.Validate(); err != nil {
		return usageError("%w", err) // the area words its mistakes for the operator
	}
	return nil
}

func (r *areaRequest) Run(ctx context.Context, app *App, out io.Writer) error {
	return r.req.Run(ctx, hostarea.CommandEnv{Sys: app.Sys, Config: app.Cfg, Log: app.Log}, out)
}

// MarshalJSON and UnmarshalJSON carry the area's request over the admin
// socket.
func (r *areaRequest) MarshalJSON() ([]byte, error) { return json.Marshal(r.req) }
func (r *areaRequest) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, r.req) }
