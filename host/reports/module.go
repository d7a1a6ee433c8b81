package reports

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/console/consolepage"
	"github.com/honmaster/masterserver/host/failure/detail"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/metrics"
	bundled "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
)

// The area registers itself with the host (host/area): its bundled
// plugin, its routes and login hook (SysInfo kept at login; susp_id in the
// session record), its metric (honmaster_reports_filed_total), its console
// pages (the moderation queue /console/reports and a report's page with
// its resolve form, and the suspension section of the account page), its
// operator commands ("honmaster reports list|show|resolve": like every
// operator command they run inside the running server, through its
// actors, when it runs: a resolution is written by the reportee's actor,
// the dismissal of a report against a deleted account by the reporter's),
// "honmaster player report" (player.go), and its deletion hook
// (DeleteHook). Its settings are the [reports] table
// (Settings) and limits.reports_per_address, which a reload puts in
// force at once.
func init() {
	area.Register(area.Module{Area: reportsapi.Area, Bundled: bundled.Plugin, Start: start, OnDelete: DeleteHook,
		PlayerCommands: []area.PlayerCommand{playerReport},
		LiveSettings:   []string{"limits.reports_per_address"},
		Commands: []area.Command{
			{Name: "reports list", Usage: "[--status open|resolved|dismissed|warned|suspended|any] [--reportee NAME]",
				Flags: func(fs *flag.FlagSet) area.CommandRequest {
					r := &listRequest{}
					fs.StringVar(&r.Status, "status", "open", "open, dismissed, warned, suspended or any")
					fs.StringVar(&r.Reportee, "reportee", "", "nickname of the reported player")
					return r
				}},
			{Name: "reports show", Usage: "ID", Flags: func(*flag.FlagSet) area.CommandRequest { return &showRequest{} }},
			{Name: "reports resolve", Usage: "ID --action dismiss|warn|suspend [--days N] [--note T] [--by MODERATOR]",
				Flags: func(fs *flag.FlagSet) area.CommandRequest {
					r := &resolveRequest{}
					fs.StringVar(&r.Action, "action", "", "dismiss, warn or suspend")
					fs.IntVar(&r.Days, "days", 0, fmt.Sprintf("days of the suspension (1..%d) or warning (0: the default)", MaxResolveDays))
					fs.StringVar(&r.Note, "note", "", fmt.Sprintf("moderator's note (at most %d characters)", MaxNoteRunes))
					fs.StringVar(&r.By, "by", "admin", "moderator's name recorded with the verdict")
					return r
				}},
		}})
}

// configOf is the area's Config from the server's configuration.
func configOf(c *config.Config) Config {
	r, lim := SettingsOf(c), c.Limits
	return Config{Disabled: r.Disabled, Limits: reportsapi.Limits{PerDay: r.PerDay,
		PerReportee: r.PerReportee, MaxTextRunes: r.MaxTextRunes, MaxPriority: r.MaxPriority, NewAccountAge: lim.NewAccountAge.Duration},
		PerAddress: addressRate(lim), AddressKeys: lim.TrackedKeys}
}

func addressRate(l config.Limits) limit.Rate {
	return limit.Rate{Burst: l.ReportsAddress.Burst, Every: l.ReportsAddress.Every.Duration}
}

func start(e area.Env) (*area.Live, error) {
	a, err := New(Deps{Sys: e.Sys, Login: e.Login, Decider: e.Plugin, Log: e.Log, Config: configOf(e.Config)})
	if err != nil {
		return nil, err
	}
	filed, err := filedCounter(e.Metrics)
	if err != nil {
		return nil, err
	}
	e.Login.SetSessionHook(SessionHook)
	rs := a.Routes()
	for i := range rs {
		if p := rs[i].Path; p == PathReport || p == PathReport2 {
			rs[i].Counted = func(outcome string) { filed.WithLabelValues(p, outcome).Inc() }
		}
	}
	p := newPages(e)
	return &area.Live{Routes: rs, Pages: p.consolePages(), AccountPanels: []consolepage.AccountPanel{p.accountPanel()},
		Suspended: accountSuspended, SessionFields: sessionFields,
		Reload: func(c *config.Config) { a.SetAddressRate(addressRate(c.Limits)) }}, nil
}

// filedCounter is honmaster_reports_filed_total, registered on reg (or the
// one a previous start registered there), every series at 0.
func filedCounter(reg prometheus.Registerer) (*prometheus.CounterVec, error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metrics.Namespace, Name: "reports_filed_total",
		Help: "Player report requests, by route and outcome (a /rap/report2.php request may carry several reports)."}, []string{"route", "outcome"})
	c, err := metrics.Register(reg, c)
	if err != nil {
		return nil, err
	}
	for _, o := range metrics.RequestOutcomes() {
		c.WithLabelValues(PathReport, o)
		c.WithLabelValues(PathReport2, o)
	}
	return c, nil
}

// commandUsage words the area's usage errors for the operator. A bad
// report ID is worded alike whether it came alone (show) or inside the
// area's usage error (resolve).
func commandUsage(err error) error {
	switch {
	case errors.Is(err, ErrBadReportID):
		d, _ := detail.Of(err, ErrBadReportID)
		return errors.New("report ID " + d)
	case errors.Is(err, ErrUsage):
		d, _ := detail.Of(err, ErrUsage)
		return errors.New(d)
	}
	return err
}

// commandError words the failures of a command on one report.
func commandError(id string, err error) error {
	switch {
	case errors.Is(err, ErrUnknownReport):
		return &area.OperatorError{Cause: err, Msg: fmt.Sprintf("no report has the ID %s (see 'honmaster reports list --status any')", id)}
	case errors.Is(err, ErrAlreadyResolved):
		d, _ := detail.Of(err, ErrAlreadyResolved)
		return &area.OperatorError{Cause: err, Msg: fmt.Sprintf("report %s is already resolved, nothing changed: %s (a report is resolved once)", id, d)}
	case errors.Is(err, ErrReporteeDeleted):
		d, _ := detail.Of(err, ErrReporteeDeleted)
		return &area.OperatorError{Cause: err, Msg: fmt.Sprintf("report %s is still open, nothing changed: %s (--action dismiss)", id, d)}
	}
	return err
}

// listRequest is "reports list": the reports of a status ("any": all)
// and, when Reportee is set, against one player (by nickname).
type listRequest struct {
	Status   string `json:"status"`
	Reportee string `json:"reportee,omitempty"`
}

// filter is the area's filter of the request; ParseListArgs holds the
// rules.
func (r *listRequest) filter() (ListFilter, error) {
	f, err := ParseListArgs([]string{"--status", r.Status, "--reportee", r.Reportee})
	return f, commandUsage(err)
}

func (r *listRequest) Validate() error { _, err := r.filter(); return err }

func (r *listRequest) Run(_ context.Context, e area.CommandEnv, out io.Writer) error {
	f, err := r.filter()
	if err != nil {
		return err
	}
	rs, err := List(e.Sys.DB(), f)
	if err != nil {
		return err
	}
	return FormatList(out, rs)
}

// idArg is the report ID of a command on one report, the one positional
// argument (before or after the flags).
type idArg struct {
	ID string `json:"id"`
}

func (r *idArg) Args(args []string) error {
	switch len(args) {
	case 0:
	case 1:
		r.ID = args[0]
	default:
		return fmt.Errorf("one report ID, not also %q", args[1])
	}
	return nil
}

// showRequest is "reports show ID": one report and its reportee's
// moderation state.
type showRequest struct {
	idArg
}

func (r *showRequest) Validate() error {
	if r.ID == "" {
		return errors.New("reports show ID: the report ID is missing (see 'honmaster reports list')")
	}
	_, err := ParseReportID(r.ID)
	return commandUsage(err)
}

func (r *showRequest) Run(_ context.Context, e area.CommandEnv, out io.Writer) error {
	id, err := ParseReportID(r.ID)
	if err != nil {
		return commandUsage(err)
	}
	return commandError(r.ID, Show(e.Sys.DB(), id, time.Now(), out))
}

// resolveRequest is "reports resolve ID --action A ...": a moderator's
// verdict on a report. By is the moderator recorded with it ("admin"
// unless given: the request may run inside the server, whose user is not
// the operator's).
type resolveRequest struct {
	idArg
	Action string `json:"action"`
	Days   int    `json:"days,omitempty"`
	Note   string `json:"note,omitempty"`
	By     string `json:"by"`
}

// args are the area's arguments of the request; CheckResolveArgs holds
// the rules (days per action, note length).
func (r *resolveRequest) args() (ResolveArgs, string, error) {
	by, _ := CleanText(r.By, 64)
	if by == "" {
		return ResolveArgs{}, "", errors.New("--by needs a name")
	}
	if r.ID == "" {
		return ResolveArgs{}, "", errors.New("reports resolve ID: the report ID is missing (see 'honmaster reports list')")
	}
	ra, err := CheckResolveArgs(r.ID, r.Action, r.Days, r.Note, func(field string) string { return "--" + field })
	return ra, by, commandUsage(err)
}

func (r *resolveRequest) Validate() error { _, _, err := r.args(); return err }

func (r *resolveRequest) Run(ctx context.Context, e area.CommandEnv, out io.Writer) error {
	ra, by, err := r.args()
	if err != nil {
		return err
	}
	now := time.Now()
	rep, m, err := Resolve(ctx, e.Sys, ra, by, now)
	if err != nil {
		return commandError(r.ID, err)
	}
	return FormatResolved(out, rep, m, now)
}
