package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"

	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/plugins/sdk"
)

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
					r := &areaRequest{area: m.Area, name: c.Name, req: c.Flags(fs)}
					pos, takesArgs := r.req.(hostarea.Positional)
					if !takesArgs {
						if err := parse(fs, args); err != nil {
							return nil, err
						}
						return checked(r)
					}
					rest, err := parseInterleaved(fs, args)
					if err != nil {
						return nil, err
					}
					if err := pos.Args(rest); err != nil {
						return nil, usageError("%s: %w", c.Name, err)
					}
					return checked(r)
				},
				empty: func() Request {
					return &areaRequest{area: m.Area, name: c.Name, req: c.Flags(newFlags(c.Name, nil))}
				}})
		}
	}
	return out
}

// areaRequest is a Request of an area's command: the area's request, run
// with what the area may use of the App.
type areaRequest struct {
	area sdk.Area
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
	env := hostarea.CommandEnv{Sys: app.Sys, Config: app.Cfg, Log: app.Log}
	if live := app.lives[r.area]; live != nil {
		env.Live = live.Value
	}
	return r.req.Run(ctx, env, out)
}

// MarshalJSON and UnmarshalJSON carry the area's request over the admin
// socket.
func (r *areaRequest) MarshalJSON() ([]byte, error) { return json.Marshal(r.req) }
func (r *areaRequest) UnmarshalJSON(b []byte) error {
	// As strictly as the host's own requests (decodeAdmin).
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	return d.Decode(r.req)
}
