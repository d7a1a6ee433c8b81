package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/honmaster/masterserver/config"
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
		SignInPerLogin:   consoleRate(app.Cfg.Limits.ConsoleSignInLogin)})
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	c.Mount(op.Handle)
	return nil
}

// consoleRate turns a config rate into the console's: burst 0 turns the
// limit off (the console reads a zero Rate as "the default").
func consoleRate(r config.Rate) limit.Rate {
	if r.Burst == 0 {
		return limit.Rate{Burst: 0, Every: time.Minute}
	}
	return limitRate(r)
}

func opAccountRole(ctx context.Context, app *App, args []string, out io.Writer) error {
	fs := newFlags("account role", out)
	var loginName string
	var isOp bool
	fs.StringVar(&loginName, "login", "", "login of the account")
	fs.BoolVar(&isOp, "operator", false, "give the operator role (web console sign-in); --operator=false takes it away")
	if err := parse(fs, args); err != nil {
		return err
	}
	if loginName == "" {
		return fmt.Errorf("%w: --login is required", errUsage)
	}
	if err := console.SetOperator(ctx, app.Sys, loginName, isOp); err != nil {
		return err
	}
	if isOp {
		fmt.Fprintf(out, "%s is an operator (may sign in to the web console)\n", loginName)
	} else {
		fmt.Fprintf(out, "%s is not an operator\n", loginName)
	}
	return nil
}
