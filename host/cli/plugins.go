package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	bundledplinko "github.com/honmaster/masterserver/plugins/plinko"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/plugins/supervisor"
)

// bundled are the plugins compiled into the host binary, served when the
// binary is re-executed as "host plugin AREA".
var bundled = map[sdk.Area]func(){
	sdk.AreaPlinko: bundledplinko.Serve,
}

// PluginMode serves a bundled plugin when args (without the program name)
// ask for plugin mode, and reports whether they did. Test binaries that start
// the server call it first in TestMain, since the supervisor re-executes
// the running binary.
func PluginMode(args []string) bool {
	if len(args) != 2 || args[0] != "plugin" {
		return false
	}
	area, err := sdk.ParseArea(args[1])
	serve := bundled[area]
	if err != nil || serve == nil {
		fmt.Fprintf(os.Stderr, "host: no bundled plugin %q\n", args[1])
		os.Exit(2)
	}
	serve()
	return true
}

// Plugins are the supervised plugin processes of a running server; the zero
// value (operator commands with the server stopped) has none.
type Plugins struct {
	sups map[sdk.Area]*supervisor.Supervisor
}

// Plinko is the plinko decider: calls go to the current plugin process.
func (p *Plugins) Plinko() sdk.Plinko {
	if s := p.sups[sdk.AreaPlinko]; s != nil {
		return s.Plinko()
	}
	return nil
}

// Ready reports whether every plugin is running.
func (p *Plugins) Ready() bool {
	for _, s := range p.sups {
		if !s.Ready() {
			return false
		}
	}
	return true
}

// Status reports the supervised plugin of area; ok is false when none runs.
func (p *Plugins) Status(area sdk.Area) (st supervisor.Status, ok bool) {
	s := p.sups[area]
	if s == nil {
		return supervisor.Status{}, false
	}
	return s.Status(), true
}

// Stop stops every plugin.
func (p *Plugins) Stop() {
	for _, s := range p.sups {
		s.Stop()
	}
}

// startPlugins launches the plugin of every area the host implements:
// bundled by default, or the external binary configured in
// [plugins.AREA] path. It returns when all answer their first health call.
func (a *App) startPlugins(ctx context.Context) error {
	a.Plugins.sups = map[sdk.Area]*supervisor.Supervisor{}
	for _, area := range sdk.Areas() {
		pc := a.Cfg.Plugins[string(area)]
		src := supervisor.Source{Area: area, Path: pc.Path, Args: pc.Args, Env: pc.Env,
			StartTimeout: pc.StartTimeout.Duration, CallTimeout: pc.CallTimeout.Duration}
		s := supervisor.New(src, supervisor.Options{Logger: a.Log.With("plugin", string(area))})
		if err := s.Start(ctx); err != nil {
			a.Plugins.Stop()
			return fmt.Errorf("plugin %s: %w", area, err)
		}
		a.Plugins.sups[area] = s
		a.Log.Info("plugin started", "area", area, "source", s.Status().Source, "pid", s.Status().PID)
	}
	return nil
}

// opPlugins lists the plugin areas, where each plugin comes from, its
// protocol version and its status.
func opPlugins(_ context.Context, app *App, args []string, out io.Writer) error {
	fs := newFlags("plugins", out)
	if err := parse(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(out, "%-8s %-9s %-8s %-10s %-8s %s\n", "AREA", "PROTOCOL", "PID", "STATE", "RESTARTS", "SOURCE")
	areas := sdk.Areas()
	sort.Slice(areas, func(i, j int) bool { return areas[i] < areas[j] })
	for _, area := range areas {
		if s := app.Plugins.sups[area]; s != nil {
			st := s.Status()
			fmt.Fprintf(out, "%-8s %-9d %-8d %-10s %-8d %s\n", area, st.ProtocolVersion, st.PID, st.State, st.Restarts, st.Source)
			continue
		}
		src := "bundled"
		if p := app.Cfg.Plugins[string(area)].Path; p != "" {
			src = p
		}
		fmt.Fprintf(out, "%-8s %-9d %-8s %-10s %-8s %s\n", area, area.ProtocolVersion(), "-", "not running", "-", src)
	}
	if other := notImplementedAreas(app); len(other) > 0 {
		fmt.Fprintf(out, "configured areas without a plugin contract yet: %s\n", strings.Join(other, ", "))
	}
	return nil
}

// notImplementedAreas are configured plugin areas the host does not run yet.
func notImplementedAreas(app *App) []string {
	var out []string
	for name := range app.Cfg.Plugins {
		if a, err := sdk.ParseArea(name); err != nil || !a.Known() {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
