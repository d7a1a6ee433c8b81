package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/honmaster/masterserver/host/reports"
	"github.com/honmaster/masterserver/host/server"
	rules "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// The reports area's operator commands (moderation). Like every operator
// command they run inside the running server, through its actors, when it
// runs: a resolution is written by the reportee's actor.
func init() {
	ops = append(ops,
		op{name: "reports list", usage: "[--status open|dismissed|warned|suspended|any] [--reportee NAME]", run: opReportsList},
		op{name: "reports show", usage: "ID", run: opReportsShow},
		op{name: "reports resolve", usage: "ID --action dismiss|warn|suspend [--days N] [--note T] [--by MODERATOR]", run: opReportsResolve},
	)
}

// reportsRoutes builds the reports area on its plugin and installs its
// login hook (SysInfo kept at login; susp_id in the session record).
func reportsRoutes(app *App, decider sdk.Caller) ([]server.Route, error) {
	c := app.Cfg.Reports
	a, err := reports.New(reports.Deps{Sys: app.Sys, Login: app.Login, Decider: decider, Log: app.Log,
		Config: reports.Config{Disabled: c.Disabled, Limits: rules.Limits{PerDay: c.PerDay,
			PerReportee: c.PerReportee, MaxTextRunes: c.MaxTextRunes, MaxPriority: c.MaxPriority}}})
	if err != nil {
		return nil, err
	}
	app.Login.SetSessionHook(reports.SessionHook)
	return a.Routes(), nil
}

// reportsUsage turns the area's usage errors into the CLI's.
func reportsUsage(err error) error {
	if errors.Is(err, reports.ErrUsage) || errors.Is(err, reports.ErrBadReportID) {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	return err
}

func opReportsList(_ context.Context, app *App, args []string, out io.Writer) error {
	f, err := reports.ParseListArgs(args)
	if err != nil {
		return reportsUsage(err)
	}
	rs, err := reports.List(app.DB, f)
	if err != nil {
		return err
	}
	return reports.FormatList(out, rs)
}

func opReportsShow(_ context.Context, app *App, args []string, out io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("%w: reports show ID", errUsage)
	}
	id, err := reports.ParseReportID(args[0])
	if err != nil {
		return reportsUsage(err)
	}
	return reports.Show(app.DB, id, time.Now(), out)
}

// opReportsResolve records a verdict. The moderator recorded with it is
// --by NAME, "admin" when not given (the command may run inside the server,
// whose user is not the operator's).
func opReportsResolve(ctx context.Context, app *App, args []string, out io.Writer) error {
	by := "admin"
	var rest []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--by" || a == "-by":
			if i+1 >= len(args) {
				return fmt.Errorf("%w: --by needs a name", errUsage)
			}
			by, i = args[i+1], i+1
		case strings.HasPrefix(a, "--by=") || strings.HasPrefix(a, "-by="):
			by = a[strings.Index(a, "=")+1:]
		default:
			rest = append(rest, a)
		}
	}
	if by, _ = reports.CleanText(by, 64); by == "" {
		return fmt.Errorf("%w: --by needs a name", errUsage)
	}
	ra, err := reports.ParseResolveArgs(rest)
	if err != nil {
		return reportsUsage(err)
	}
	now := time.Now()
	r, m, err := reports.Resolve(ctx, app.Sys, ra, by, now)
	if err != nil {
		return err
	}
	return reports.FormatResolved(out, r, m, now)
}
