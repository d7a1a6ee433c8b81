package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/reports"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// The reports area's operator commands (moderation). Like every operator
// command they run inside the running server, through its actors, when it
// runs: a resolution is written by the reportee's actor.
func init() {
	ops = append(ops,
		op{name: "reports list", usage: "[--status open|dismissed|warned|suspended|any] [--reportee NAME]",
			parse: parseReportsList, empty: func() Request { return new(ReportsListRequest) }},
		op{name: "reports show", usage: "ID",
			parse: parseReportShow, empty: func() Request { return new(ReportShowRequest) }},
		op{name: "reports resolve", usage: "ID --action dismiss|warn|suspend [--days N] [--note T] [--by MODERATOR]",
			parse: parseResolveReport, empty: func() Request { return new(ResolveReportRequest) }},
	)
}

// reportsRoutes builds the reports area on its plugin and installs its
// login hook (SysInfo kept at login; susp_id in the session record).
func reportsRoutes(app *App, decider sdk.Caller) ([]server.Route, error) {
	c, lim := app.Cfg.Reports, app.Cfg.Limits
	a, err := reports.New(reports.Deps{Sys: app.Sys, Login: app.Login, Decider: decider, Log: app.Log,
		Config: reports.Config{Disabled: c.Disabled, Limits: reportsapi.Limits{PerDay: c.PerDay,
			PerReportee: c.PerReportee, MaxTextRunes: c.MaxTextRunes, MaxPriority: c.MaxPriority, NewAccountAge: lim.NewAccountAge.Duration},
			PerAddress:  limit.Rate{Burst: lim.ReportsAddress.Burst, Every: lim.ReportsAddress.Every.Duration},
			AddressKeys: lim.TrackedKeys}})
	if err != nil {
		return nil, err
	}
	app.Login.SetSessionHook(reports.SessionHook)
	app.reportsArea = a
	return a.Routes(), nil
}

// reportsUsage turns the area's usage errors into the CLI's. A bad report
// ID is worded alike whether it came alone (show) or inside the area's
// usage error (resolve).
func reportsUsage(err error) error {
	switch {
	case errors.Is(err, reports.ErrBadReportID):
		return usageError("%w", &opError{cause: err, msg: "report ID " + specifics(err, reports.ErrBadReportID)})
	case errors.Is(err, reports.ErrUsage):
		return usageError("%w", &opError{cause: err, msg: specifics(err, reports.ErrUsage)})
	}
	return err
}

// reportError words the failures of a command on one report.
func reportError(id string, err error) error {
	switch {
	case errors.Is(err, reports.ErrUnknownReport):
		return &opError{cause: err, msg: fmt.Sprintf("no report has the ID %s (see '%s reports list --status any')", id, Name)}
	case errors.Is(err, reports.ErrAlreadyResolved):
		return &opError{cause: err, msg: fmt.Sprintf("report %s is already resolved, nothing changed: %s (a report is resolved once)",
			id, specifics(err, reports.ErrAlreadyResolved))}
	}
	return err
}

// ReportsListRequest lists the reports of a status ("any": all) and,
// when Reportee is set, against one player (by nickname).
type ReportsListRequest struct {
	Status   string `json:"status"`
	Reportee string `json:"reportee,omitempty"`
}

func (*ReportsListRequest) Op() string { return "reports list" }

// filter is the area's filter of the request; the area's parser holds the
// rules.
func (r *ReportsListRequest) filter() (reports.ListFilter, error) {
	f, err := reports.ParseListArgs([]string{"--status", r.Status, "--reportee", r.Reportee})
	return f, reportsUsage(err)
}

func (r *ReportsListRequest) Validate() error { _, err := r.filter(); return err }

func (r *ReportsListRequest) Run(_ context.Context, app *App, out io.Writer) error {
	f, err := r.filter()
	if err != nil {
		return err
	}
	rs, err := reports.List(app.DB, f)
	if err != nil {
		return err
	}
	return reports.FormatList(out, rs)
}

func parseReportsList(args []string) (Request, error) {
	fs := newFlags("reports list", nil)
	var r ReportsListRequest
	fs.StringVar(&r.Status, "status", "open", "open, dismissed, warned, suspended or any")
	fs.StringVar(&r.Reportee, "reportee", "", "nickname of the reported player")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	return checked(&r)
}

// ReportShowRequest shows one report and its reportee's moderation state.
type ReportShowRequest struct {
	ID string `json:"id"`
}

func (*ReportShowRequest) Op() string { return "reports show" }

func (r *ReportShowRequest) Validate() error {
	if r.ID == "" {
		return usageError("reports show ID: the report ID is missing (see '%s reports list')", Name)
	}
	_, err := reports.ParseReportID(r.ID)
	return reportsUsage(err)
}

func (r *ReportShowRequest) Run(_ context.Context, app *App, out io.Writer) error {
	id, err := reports.ParseReportID(r.ID)
	if err != nil {
		return reportsUsage(err)
	}
	return reportError(r.ID, reports.Show(app.DB, id, time.Now(), out))
}

func parseReportShow(args []string) (Request, error) {
	fs := newFlags("reports show", nil)
	if err := parseWithArgs(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 1 {
		return nil, usageError("reports show takes one report ID")
	}
	return checked(&ReportShowRequest{ID: fs.Arg(0)})
}

// ResolveReportRequest records a moderator's verdict on a report. By is
// the moderator recorded with it ("admin" unless given: the request may
// run inside the server, whose user is not the operator's).
type ResolveReportRequest struct {
	ID     string `json:"id"`
	Action string `json:"action"`
	Days   int    `json:"days,omitempty"`
	Note   string `json:"note,omitempty"`
	By     string `json:"by"`
}

func (*ResolveReportRequest) Op() string { return "reports resolve" }

// args are the area's arguments of the request; the area's parser holds
// the rules (days per action, note length).
func (r *ResolveReportRequest) args() (reports.ResolveArgs, string, error) {
	by, _ := reports.CleanText(r.By, 64)
	if by == "" {
		return reports.ResolveArgs{}, "", usageError("--by needs a name")
	}
	if r.ID == "" {
		return reports.ResolveArgs{}, "", usageError("reports resolve ID: the report ID is missing (see '%s reports list')", Name)
	}
	ra, err := reports.ParseResolveArgs([]string{r.ID, "--action", r.Action, "--days", strconv.Itoa(r.Days), "--note", r.Note})
	return ra, by, reportsUsage(err)
}

func (r *ResolveReportRequest) Validate() error { _, _, err := r.args(); return err }

func (r *ResolveReportRequest) Run(ctx context.Context, app *App, out io.Writer) error {
	ra, by, err := r.args()
	if err != nil {
		return err
	}
	now := time.Now()
	rep, m, err := reports.Resolve(ctx, app.Sys, ra, by, now)
	if err != nil {
		return reportError(r.ID, err)
	}
	return reports.FormatResolved(out, rep, m, now)
}

func parseResolveReport(args []string) (Request, error) {
	fs := newFlags("reports resolve", nil)
	var r ResolveReportRequest
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		r.ID, args = args[0], args[1:]
	}
	fs.StringVar(&r.Action, "action", "", "dismiss, warn or suspend")
	fs.IntVar(&r.Days, "days", 0, fmt.Sprintf("days of the suspension (1..%d) or warning (0: the default)", reports.MaxResolveDays))
	fs.StringVar(&r.Note, "note", "", fmt.Sprintf("moderator's note (at most %d characters)", reports.MaxNoteRunes))
	fs.StringVar(&r.By, "by", "admin", "moderator's name recorded with the verdict")
	if err := parseWithArgs(fs, args); err != nil {
		return nil, err
	}
	rest := fs.Args()
	if r.ID == "" && len(rest) > 0 {
		r.ID, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		return nil, usageError("unexpected argument %q", rest[0])
	}
	return checked(&r)
}
