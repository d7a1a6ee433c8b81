package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honmaster/masterserver/config"

	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/gcfloor"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/plugins/supervisor"
)

// bundledPlugin is the plugin the binary bundles for area (nil: none).
func bundledPlugin(area sdk.Area) func() *sdk.Plugin {
	if m, ok := hostarea.Lookup(area); ok {
		return m.Bundled
	}
	return nil
}

// pluginGCHeapFloor is the heap floor of a bundled plugin's process
// (package gcfloor): its live heap is a few MiB, and it allocates for every
// batch of decisions.
const pluginGCHeapFloor = 16 << 20

// PluginMode serves a bundled plugin when args (without the program name)
// ask for plugin mode, and reports whether they did. Test binaries that start
// the server call it first in TestMain, since the supervisor re-executes
// the running binary.
func PluginMode(args []string) bool {
	if len(args) != 2 || args[0] != "plugin" {
		return false
	}
	area, err := sdk.ParseArea(args[1])
	bundled := bundledPlugin(area)
	if err != nil || bundled == nil {
		fmt.Fprintf(os.Stderr, "%s: no bundled plugin %q\n", Name, args[1])
		os.Exit(2)
	}
	gcfloor.Start(pluginGCHeapFloor) // for the process's life; GOGC, when set, wins
	sdk.Serve(bundled())
	return true
}

// Plugins are the supervised plugin processes of a running server; the zero
// value (operator commands with the server stopped) has none.
type Plugins struct {
	sups map[sdk.Area]*pluginSlot // fixed once started; each slot's plugin may be replaced (reload)
}

// pluginSlot is an area's supervised plugin, which a configuration reload
// may replace: calls go to the plugin in force, and a replaced one is
// stopped only after the calls it was serving have returned, so a restart
// drops no request.
type pluginSlot struct {
	cur atomic.Pointer[pluginUse]
}

// pluginUse is one supervisor's time in a slot.
type pluginUse struct {
	sup *supervisor.Supervisor
	// mu is held for reading by each call in flight; replace takes it to
	// wait for them.
	mu      sync.RWMutex
	retired bool
}

var _ sdk.Caller = (*pluginSlot)(nil)

func newPluginSlot(s *supervisor.Supervisor) *pluginSlot {
	slot := &pluginSlot{}
	slot.cur.Store(&pluginUse{sup: s})
	return slot
}

// Decide calls the plugin in force.
func (p *pluginSlot) Decide(ctx context.Context, decision string, facts, state []byte) (sdk.RawResult, error) {
	for {
		u := p.cur.Load()
		u.mu.RLock()
		if u.retired { // replaced since Load: go to the new one
			u.mu.RUnlock()
			continue
		}
		res, err := u.sup.Decide(ctx, decision, facts, state)
		u.mu.RUnlock()
		return res, err
	}
}

func (p *pluginSlot) supervisor() *supervisor.Supervisor { return p.cur.Load().sup }

// Ready, Status and Stop are the plugin in force's.
func (p *pluginSlot) Ready() bool               { return p.supervisor().Ready() }
func (p *pluginSlot) Status() supervisor.Status { return p.supervisor().Status() }
func (p *pluginSlot) Stop()                     { p.supervisor().Stop() }

// replace puts s in force, waits for the calls of the plugin it replaces
// to return, and stops that one.
func (p *pluginSlot) replace(s *supervisor.Supervisor) {
	old := p.cur.Swap(&pluginUse{sup: s})
	old.mu.Lock()
	old.retired = true
	old.mu.Unlock()
	old.sup.Stop()
}

// Caller reaches the plugin of area: calls go to the current plugin
// process. nil when the area runs no plugin.
func (p *Plugins) Caller(area sdk.Area) sdk.Caller {
	if s := p.sups[area]; s != nil {
		return s
	}
	return nil
}

// Unhealthy names the areas whose plugin is not running (dead, hung and
// being restarted, or stopped), sorted.
func (p *Plugins) Unhealthy() []string {
	var out []string
	for area, s := range p.sups {
		if !s.Ready() {
			out = append(out, string(area))
		}
	}
	sort.Strings(out)
	return out
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

// pluginSource is the supervisor's source of area's plugin as pc
// configures it, its call_timeout held to ask (actors.ask_timeout; held
// true when it was above). A decision is asked inside the account's actor
// for a request that waits no longer than ask (and a second): a longer
// call never ended on its own, and the supervisor, which counts toward a
// hang only the timed-out calls whose caller still waited, never restarted
// a plugin that answers pings but no decision.
func pluginSource(area sdk.Area, pc config.Plugin, ask time.Duration) (src supervisor.Source, held bool) {
	call := pc.CallTimeout.Duration
	if ask > 0 && call > ask {
		call, held = ask, true
	}
	return supervisor.Source{Area: area, Path: pc.Path, Args: pc.Args, Env: pc.Env,
		StartTimeout: pc.StartTimeout.Duration, CallTimeout: call,
		PingInterval: pc.PingInterval.Duration, PingTimeout: pc.PingTimeout.Duration, Config: pc.Config,
		BatchesInFlight: pc.BatchesInFlight}, held
}

// startPlugins launches the plugin of every area the host implements:
// bundled by default, or the external binary configured in
// [plugins.AREA] path. It returns when all answer their first health call.
func (a *App) startPlugins(ctx context.Context) error {
	a.Plugins.sups = map[sdk.Area]*pluginSlot{}
	for _, m := range hostarea.PluginModules() {
		s, err := a.startPlugin(ctx, m.Area, a.Cfg.Plugins[string(m.Area)])
		if err != nil {
			a.Plugins.Stop()
			return err
		}
		a.Plugins.sups[m.Area] = newPluginSlot(s) // the supervisor logged "plugin running"
	}
	return nil
}

// startPlugin starts area's plugin as pc configures it.
func (a *App) startPlugin(ctx context.Context, area sdk.Area, pc config.Plugin) (*supervisor.Supervisor, error) {
	src, held := pluginSource(area, pc, a.Cfg.Actors.AskTimeout.Duration)
	if held {
		a.Log.Warn("a plugin's call_timeout is above actors.ask_timeout, which no request outwaits: its calls are held to actors.ask_timeout",
			"plugin_area", area, "call_timeout", pc.CallTimeout, "ask_timeout", a.Cfg.Actors.AskTimeout)
	}
	opts := supervisor.Options{Logger: a.Log} // the supervisor names its area (plugin_area); go-plugin adds its own "plugin" key
	if a.pluginClock != nil {
		opts.Clock = a.pluginClock(area)
	}
	s := supervisor.New(src, opts)
	if err := s.Start(ctx); err != nil {
		if errors.Is(err, supervisor.ErrConfig) {
			// The operator's [plugins.<area>.config] table: a configuration
			// mistake (exit status 2), each refused key named.
			return nil, &opError{cause: errors.Join(errConfig, err), msg: fmt.Sprintf("the %s plugin refused its configuration, so the server did not start: %s",
				area, refusedConfig(err))}
		}
		how := "the bundled plugin"
		if pc.Path != "" {
			how = fmt.Sprintf("plugins.%s.path or --plugin %s=PATH", area, area)
		}
		return nil, &opError{cause: err, msg: fmt.Sprintf("the %s plugin did not start, so the server did not either: %s (check %s)",
			area, stripInternal(err.Error()), how)}
	}
	return s, nil
}

// refusedConfig is what a plugin refused in its [plugins.<area>.config]
// table ("plugins.plinko.config.bogus: unknown key; ..."): the text of the
// supervisor's supervisor.ErrConfig error after that kind's own words,
// without the chain around it ("start plinko plugin (bundled): plugin
// rejected its configuration: ...").
func refusedConfig(err error) string {
	if d, ok := configDetail(err); ok {
		return stripInternal(d)
	}
	return stripInternal(err.Error())
}

// configDetail finds, depth first, the error that wraps
// supervisor.ErrConfig with the refused keys, and returns those.
func configDetail(e error) (string, bool) {
	switch u := e.(type) {
	case interface{ Unwrap() error }:
		if u.Unwrap() == supervisor.ErrConfig {
			return strings.CutPrefix(e.Error(), supervisor.ErrConfig.Error()+": ")
		}
		return configDetail(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, next := range u.Unwrap() {
			if d, ok := configDetail(next); ok {
				return d, true
			}
		}
	}
	return "", false
}

// errAreaNotServed: a plugin is configured for an area this build does not
// serve, so it would never run.
var errAreaNotServed = errors.New("plugin area not served")

// checkPluginFlags refuses a plugin path (from --plugin or the file) for an
// area this build does not serve: it would be silently ignored.
func checkPluginFlags(cfg *config.Config) error {
	served := hostarea.PluginNames()
	var bad []string
	for name, pc := range cfg.Plugins {
		if pc.Path != "" && !slices.Contains(served, name) {
			bad = append(bad, name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return &opError{cause: errAreaNotServed, msg: fmt.Sprintf("a plugin is configured for %s, which this server does not serve yet "+
		"(it serves %s); remove --plugin %s=... or plugins.%s.path", strings.Join(bad, ", "), strings.Join(served, ", "), bad[0], bad[0])}
}

// PluginsRequest lists the plugin areas, where each plugin comes from, its
// protocol version and its status.
type PluginsRequest struct{}

func (*PluginsRequest) Op() string { return "plugins" }

func (*PluginsRequest) Validate() error { return nil }

func parsePlugins(args []string) (Request, error) {
	if err := parse(newFlags("plugins", nil), args); err != nil {
		return nil, err
	}
	return &PluginsRequest{}, nil
}

func (*PluginsRequest) Run(_ context.Context, app *App, out io.Writer) error {
	fmt.Fprintf(out, "%-8s %-9s %-8s %-11s %-8s %-20s %-20s %s\n", "AREA", "PROTOCOL", "PID", "STATE", "RESTARTS", "PLUGIN", "SOURCE", "LAST ERROR")
	for _, m := range hostarea.PluginModules() {
		area := m.Area
		if s := app.Plugins.sups[area]; s != nil {
			st := s.Status()
			name := "-"
			if st.Plugin != "" {
				name = st.Plugin + "@" + st.PluginVersion
			}
			lastErr := "-"
			if st.LastError != nil {
				lastErr = st.LastError.Error()
			}
			fmt.Fprintf(out, "%-8s %-9d %-8d %-11s %-8d %-20s %-20s %s\n", area, st.ProtocolVersion, st.PID, st.State, st.Restarts, name, st.Source, lastErr)
			continue
		}
		src := "bundled"
		if p := app.Cfg.Plugins[string(area)].Path; p != "" {
			src = p
		}
		fmt.Fprintf(out, "%-8s %-9d %-8s %-11s %-8s %-20s %-20s %s\n", area, area.ProtocolVersion(), "-", "not running", "-", "-", src, "-")
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
