package cli

import (
	"fmt"
	"time"

	"github.com/honmaster/masterserver/config"
	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/limit"

	"github.com/honmaster/masterserver/host/console"
	"github.com/honmaster/masterserver/host/operator"
)

// mountConsole mounts the web console on the operator listener.
func mountConsole(op *operator.Server, app *App) error {
	c, err := console.New(console.Deps{Sys: app.Sys, Group: app.Group, Accounts: app.Accounts, Login: app.Login,
		Metrics: app.Metrics, Plugins: app.Plugins.statuses, Log: app.Log,
		Health:           func() error { return storageHealth(app.DB.Health()) },
		SignInPerAddress: consoleRate(app.Cfg.Limits.ConsoleSignInAddress),
		SignInPerLogin:   consoleRate(app.Cfg.Limits.ConsoleSignInLogin),
		SecureCookies:    app.Cfg.ConsoleSecureCookies(),
		// The console reads client addresses as the game listener does:
		// the documented proxies front both listeners.
		TrustForwardedFor: app.Cfg.Server.TrustForwardedFor,
		TrustedProxies:    app.Cfg.Server.TrustedProxies,
		Nodes:             consoleNodes(app),
		Reload:            app.reloadFromConsole,
		ReloadFailed:      app.reloadFailure})
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	for _, m := range hostarea.Modules() {
		if live := app.lives[m.Area]; live != nil {
			if err := c.AddArea(live); err != nil {
				return fmt.Errorf("area %s: %w", m.Area, err)
			}
		}
	}
	app.console = c
	c.Mount(op.Handle)
	return nil
}

// consoleRate turns a config rate into the console's and the operator
// listener's: burst 0 turns the limit off (both read a zero Rate as "the
// default").
func consoleRate(r config.Rate) limit.Rate {
	if r.Burst == 0 {
		return limit.Rate{Burst: 0, Every: time.Minute}
	}
	return limitRate(r)
}
