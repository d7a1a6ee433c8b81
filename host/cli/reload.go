package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/honmaster/masterserver/config"
	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/logflood"
	"github.com/honmaster/masterserver/plugins/supervisor"
)

// liveKeys are the host's settings a configuration reload puts in force at
// once (each area adds its own, hostarea.Module.LiveSettings): a key as
// config.Changed names it, or a prefix ending in ".". Every other
// key that changed (the listen addresses, the data directory, storage,
// the other actors settings, the SRP group, a section added later such as [cluster] ...) keeps
// its running value until the next restart, and the reload names it in one
// warning line.
var liveKeys = []string{
	"server.log_level", "server.log_format", "server.log_repeat_limit", "server.log_repeat_window",
	"server.trust_forwarded_for", "server.trusted_proxies", "server.access_log",
	"server.log_value_limit",
	"portal.register_enabled",
	"patch",
	"console.secure_cookie",
	"operator.allowed_hosts",
	"limits.registrations_per_address",
	"limits.failed_proofs_per_address", "limits.failed_proofs_per_login_address", "limits.logins_per_address",
	"limits.max_connections", "limits.max_connections_per_address",
	"limits.console_signin_per_address", "limits.console_signin_per_login",
	"limits.toggles_per_account", "limits.toggles_per_address", // switch_auth's here; the areas' in theirs
	"actors.idle_timeout",
	"plugins.", "plugin_defaults.",
}

func isLive(key string) bool {
	keys := liveKeys
	for _, m := range hostarea.Modules() {
		keys = append(keys[:len(keys):len(keys)], m.LiveSettings...)
	}
	for _, k := range keys {
		if key == k || (strings.HasSuffix(k, ".") && strings.HasPrefix(key, k)) {
			return true
		}
	}
	return false
}

// ReloadResult is what a reload changed.
type ReloadResult struct {
	Applied []string // keys now in force
	Kept    []string // keys that changed in the file but need a restart: their running values are kept
}

// String words the result for an operator.
func (r ReloadResult) String() string {
	if len(r.Applied) == 0 && len(r.Kept) == 0 {
		return "configuration reloaded: nothing changed"
	}
	msg := "configuration reloaded"
	if len(r.Applied) > 0 {
		msg += "; in force now: " + strings.Join(r.Applied, ", ")
	}
	if len(r.Kept) > 0 {
		msg += "; need a restart (running values kept): " + strings.Join(r.Kept, ", ")
	}
	return msg
}

// errReload: the new configuration was refused; nothing changed.
var errReload = errors.New("configuration not reloaded")

// WithConfigSource gives the server the way to read its configuration
// again on a reload (serve: its command line, --config file and flags, as
// at start). Without it, Reload refuses.
func WithConfigSource(load func() (*config.Config, error)) StartOption {
	return func(a *App) { a.configSource = load }
}

// Reload reads the configuration again (SIGHUP, systemctl reload, the
// console's button) and puts in force what can change live (liveKeys),
// without dropping a request or a console session: limits change in place,
// the log switches handler between two lines, and each plugin whose table
// changed is started anew and put in place of the old one once it
// answers, the old one stopping after its calls in flight returned. A file
// that does not load or validate, or a plugin that does not start with its
// new settings, changes nothing: the error says why and everything keeps
// running as it was. Reloads run one at a time.
func (rt *Runtime) Reload(ctx context.Context) (ReloadResult, error) {
	rt.reloadMu.Lock()
	defer rt.reloadMu.Unlock()
	app, log := rt.App, rt.App.Log
	res, err := rt.reload(ctx)
	if err != nil {
		// The message says what did not happen; the field only why.
		why := strings.TrimPrefix(err.Error(), errReload.Error()+": ")
		log.Warn("configuration not reloaded; the running configuration is unchanged", "reason", why)
		banner := fmt.Sprintf("The configuration reload at %s failed, so the server runs the configuration it had: %s. "+
			"Fix the file, then reload again.", time.Now().UTC().Format("2006-01-02 15:04:05 UTC"), why)
		rt.reloadFailed.Store(&banner)
		return res, err
	}
	rt.reloadFailed.Store(nil)
	if len(res.Applied) > 0 || len(res.Kept) == 0 {
		app.Log.Info("configuration reloaded", "changed", res.Applied)
	}
	if len(res.Kept) > 0 {
		app.Log.Warn("configuration reload: these settings need a restart and keep their running values", "keys", res.Kept)
	}
	return res, nil
}

func (rt *Runtime) reload(ctx context.Context) (ReloadResult, error) {
	app := rt.App
	if app.configSource == nil {
		return ReloadResult{}, fmt.Errorf("%w: this server was started without a configuration source", errReload)
	}
	if rt.closing {
		return ReloadResult{}, fmt.Errorf("%w: the server is stopping", errReload)
	}
	next, err := app.configSource()
	if err == nil {
		err = checkPluginFlags(next)
	}
	if err != nil {
		return ReloadResult{}, fmt.Errorf("%w: %w", errReload, err)
	}
	next = next.ShareLimits(rt.cfg.Cluster.NodeCount()) // as Start does, among the running cluster's nodes
	cur := rt.cfg
	var res ReloadResult
	for _, key := range config.Changed(cur, next) {
		if isLive(key) {
			res.Applied = append(res.Applied, key)
		} else {
			res.Kept = append(res.Kept, key)
		}
	}
	config.Keep(next, cur, res.Kept)

	// Plugins first: all or none. Each changed one is started (one at a
	// time) beside the running one; only when all are up do they take
	// over.
	type swap struct {
		slot *pluginSlot
		sup  *supervisor.Supervisor
	}
	var swaps []swap
	for _, m := range hostarea.Modules() {
		slot := app.Plugins.sups[m.Area]
		if slot == nil || !slices.Contains(res.Applied, "plugins."+string(m.Area)) {
			continue
		}
		s, err := app.startPlugin(ctx, m.Area, next.Plugins[string(m.Area)])
		if err != nil {
			for _, sw := range swaps {
				sw.sup.Stop()
			}
			if errors.Is(err, supervisor.ErrConfig) {
				return ReloadResult{}, fmt.Errorf("%w: the %s plugin refused its new configuration (the running one goes on): %s",
					errReload, m.Area, refusedConfig(err))
			}
			return ReloadResult{}, fmt.Errorf("%w: the %s plugin did not start with its new settings (the running one goes on): %w",
				errReload, m.Area, pluginStartCause(err))
		}
		swaps = append(swaps, swap{slot, s})
	}
	for _, sw := range swaps {
		sw.slot.replace(sw.sup)
	}

	if sw := logSwitchOf(app.Log); sw != nil {
		sw.apply(next)
	}
	app.accessLog.set(next.Server.AccessLog)
	logflood.SetClipBytes(next.Server.LogValueLimit)
	app.Sys.SetIdleTimeout(next.Actors.IdleTimeout.Duration)
	rt.Server.Reload(next)
	l := next.Limits
	app.Login.SetFailedProofRates(limitRate(l.FailedProofsAddress), limitRate(l.FailedProofsLogin))
	app.Login.SetSwitchRates(hostarea.Toggles(l))
	app.Login.SetLoginRate(limitRate(l.LoginsAddress))
	for _, m := range hostarea.Modules() {
		if live := app.lives[m.Area]; live != nil && live.Reload != nil {
			live.Reload(next)
		}
	}
	if rt.Operator != nil {
		rt.Operator.SetAllowedHosts(next.Operator.AllowedHosts)
	}
	if app.console != nil {
		app.console.SetSecureCookies(next.ConsoleSecureCookies())
		app.console.SetForwarded(next.Server.TrustForwardedFor, next.Server.TrustedProxies)
		app.console.SetSignInRates(consoleRate(l.ConsoleSignInAddress), consoleRate(l.ConsoleSignInLogin))
	}
	rt.cfg = next
	return res, nil
}

// pluginStartCause is startPlugin's error without its start-up wording.
func pluginStartCause(err error) error {
	var oe *opError
	if errors.As(err, &oe) && oe.cause != nil {
		return errors.New(stripInternal(oe.cause.Error()))
	}
	return err
}

// reloadFailure is the console's banner of a failed reload ("": none).
func (a *App) reloadFailure() string {
	if rt := a.runtime.Load(); rt != nil {
		if p := rt.reloadFailed.Load(); p != nil {
			return *p
		}
	}
	return ""
}

// reloadFromConsole is the console's Reload button.
func (a *App) reloadFromConsole(ctx context.Context) (string, error) {
	rt := a.runtime.Load()
	if rt == nil {
		return "", errors.New("the server is still starting; try again in a moment")
	}
	res, err := rt.Reload(ctx)
	if err != nil {
		return "", err
	}
	return res.String(), nil
}
