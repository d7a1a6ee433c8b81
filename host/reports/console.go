package reports

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/console/consolepage"
	"github.com/honmaster/masterserver/host/failure/detail"
	rules "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
)

// The area's console pages: the moderation queue, read with List, and a
// report's page, resolved with Resolve: the functions of "honmaster
// reports list" and "honmaster reports resolve"; the form's fields are
// checked by CheckResolveArgs, the command's own rules.

//go:embed templates/reports.html templates/report.html templates/suspension.html
var templates embed.FS

var (
	queueTemplate  = template.Must(template.ParseFS(templates, "templates/reports.html"))
	reportTemplate = template.Must(template.ParseFS(templates, "templates/report.html"))
)

// pageTimeout bounds one page's work.
const pageTimeout = 10 * time.Second

// pages are the area's console pages.
type pages struct {
	sys *actors.System
	log *slog.Logger
	now func() time.Time
}

func newPages(e area.Env) *pages {
	return &pages{sys: e.Sys, log: e.Log.With("area", areaName), now: time.Now}
}

func (p *pages) consolePages() []consolepage.Page {
	return []consolepage.Page{{Path: "/console/reports", Title: "Reports", Handler: http.HandlerFunc(p.queue),
		Routes: map[string]http.Handler{
			"GET /console/report":          http.HandlerFunc(p.report),
			"POST /console/report/resolve": http.HandlerFunc(p.resolve),
		}}}
}

// render writes a page of the area with the console's layout.
func (p *pages) render(w http.ResponseWriter, r *http.Request, t *template.Template, title string, data any) {
	if err := consolepage.RenderTemplate(w, r, title, t, data); err != nil {
		p.log.Error("console: reports page", "err", err)
	}
}

// pageError shows a failure to read above the page.
func (p *pages) pageError(r *http.Request, err error) {
	p.log.Error("console: reports page", "err", err)
	q := r.URL.Query()
	q.Set("error", "the reports could not be read (see the server's log)")
	r.URL.RawQuery = q.Encode()
}

// reportRowsLimit bounds the rows of the queue page.
const reportRowsLimit = 200

// reportFilter is the queue page's query.
type reportFilter struct {
	Status   string // open (default), resolved, dismissed, warned, suspended, any
	Reason   string // a reason's short name, "" for any
	Reporter string // part of the reporter's nickname, case-insensitive
	Reportee string // part of the reportee's nickname, case-insensitive
}

// Option is a choice of a form's select: its value and label.
type Option struct{ Value, Label string }

type reportRow struct {
	ID, Status, Received, Reporter, Reportee, Reason, Text string
	Priority                                               int
}

type reportsData struct {
	F        reportFilter
	Statuses []Option
	Reasons  []Option
	Rows     []reportRow
	Total    int
	More     bool
}

func statusOptions() []Option {
	out := []Option{{"open", "open"}, {"resolved", "resolved (any verdict)"}}
	for _, s := range rules.Statuses() {
		if s != rules.StatusOpen {
			out = append(out, Option{s.String(), s.String()})
		}
	}
	return append(out, Option{"any", "any"})
}

// ReasonOptions are the report reasons as a select's choices.
func ReasonOptions() []Option {
	var out []Option
	for _, r := range reportsapi.Reasons() {
		out = append(out, Option{r.String(), r.Title()})
	}
	return out
}

// match applies the filter's parts that ListFilter does not
// carry.
func (f reportFilter) match(r *Report) bool {
	if f.Reason != "" && r.Reason.String() != f.Reason {
		return false
	}
	if f.Reporter != "" && !strings.Contains(strings.ToLower(r.Reporter.Nickname), strings.ToLower(f.Reporter)) {
		return false
	}
	if f.Reportee != "" && !strings.Contains(strings.ToLower(r.Reportee.Nickname), strings.ToLower(f.Reportee)) {
		return false
	}
	return true
}

func (p *pages) queue(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := reportFilter{Status: q.Get("status"), Reason: q.Get("reason"),
		Reporter: strings.TrimSpace(q.Get("reporter")), Reportee: strings.TrimSpace(q.Get("reportee"))}
	if f.Status == "" {
		f.Status = "open"
	}
	var lf ListFilter
	switch f.Status {
	case "any":
	case "resolved":
		lf.Resolved = true
	default:
		s, ok := rules.ParseStatus(f.Status)
		if !ok {
			f.Status, s = "open", rules.StatusOpen
		}
		lf.Status = s
	}
	d := reportsData{F: f, Statuses: statusOptions(), Reasons: ReasonOptions()}
	rs, err := List(p.sys.DB(), lf)
	if err != nil {
		p.pageError(r, err)
	}
	for i := range rs {
		rp := &rs[i]
		if !f.match(rp) {
			continue
		}
		d.Total++
		if len(d.Rows) == reportRowsLimit {
			d.More = true
			continue
		}
		d.Rows = append(d.Rows, reportRow{ID: rp.ID.String(), Status: rp.Status().String(), Priority: rp.Priority,
			Received: rp.Received.UTC().Format(TimeLayout), Reporter: rp.Reporter.Nickname, Reportee: rp.Reportee.Nickname,
			Reason: rp.Reason.Title(), Text: Preview(rp.Text, 60)})
	}
	p.render(w, r, queueTemplate, "Reports", d)
}

type reportData struct {
	CSRF                            template.HTML
	ID                              string
	Status                          string
	Open                            bool
	Priority                        int
	Received, Via                   string
	Reporter, Reportee              person
	Reason, Match, Text, RawText    string
	Minute                          int
	Truncated                       bool
	SysInfo                         string
	Resolution                      string
	Note                            string
	Standing                        string
	ReporteeDeleted                 bool
	Actions                         []Option
	MaxDays                         int
	DefaultWarnDays, DefaultSusDays int
}

// person is a reporter or reportee, with the login that opens their
// account page ("" when the account is gone).
type person struct {
	Nickname, Login string
	ID              storage.AccountID
}

func (p *pages) person(a Account) person {
	out := person{Nickname: a.Nickname, ID: a.ID}
	if acct, err := p.sys.DB().AccountProfile(a.ID); err == nil {
		out.Login = acct.Login
	}
	return out
}

func (p *pages) report(w http.ResponseWriter, r *http.Request) {
	id, err := ParseReportID(r.URL.Query().Get("id"))
	if err != nil {
		consolepage.Back(w, r, "/console/reports", "", formError(err))
		return
	}
	db := p.sys.DB()
	rp, err := Load(db, id)
	if err != nil {
		consolepage.Back(w, r, "/console/reports", "", formError(err))
		return
	}
	d := reportData{ID: rp.ID.String(), Status: rp.Status().String(), Open: rp.Resolution == nil, Priority: rp.Priority,
		Received: rp.Received.UTC().Format(TimeLayout), Via: rp.Source.String(),
		Reporter: p.person(rp.Reporter), Reportee: p.person(rp.Reportee),
		Reason: rp.Reason.Title(), Match: rp.Match, Minute: rp.Minute, Text: rp.Text, RawText: rp.RawText,
		Truncated: rp.Truncated, SysInfo: rp.SysInfo, MaxDays: MaxResolveDays,
		DefaultWarnDays: DefaultWarningDays, DefaultSusDays: 3}
	actions := []rules.Action{rules.ActionDismiss, rules.ActionWarn, rules.ActionSuspend}
	if rp.ReporteeDeleted {
		// No one is left to warn or suspend (Resolve refuses both).
		actions, d.ReporteeDeleted = actions[:1], true
	}
	for _, a := range actions {
		d.Actions = append(d.Actions, Option{a.String(), a.String()})
	}
	if res := rp.Resolution; res != nil {
		d.Resolution = res.Verdict() + " by " + res.Moderator + " at " + res.Time.UTC().Format(TimeLayout)
		d.Note = res.Note
	}
	if rp.ReporteeDeleted {
		d.Standing = "none: " + deletedText
	} else if m, err := ModerationOf(db, rp.Reportee.ID); err == nil {
		d.Standing = StandingText(m, p.now())
	}
	d.CSRF = consolepage.CSRFField(r)
	p.render(w, r, reportTemplate, "Report "+d.ID, d)
}

// StandingText words a moderation state at now, for the console.
func StandingText(m Moderation, now time.Time) string {
	v := m.StandingAt(now)
	if m.Effective(now) != rules.StandingNormal {
		if m.Report.IsZero() {
			v += " (set by an operator"
		} else {
			v += " (report " + m.Report.String()
		}
		v += ", " + m.Reason.Title()
		if m.Note != "" {
			v += ": " + m.Note
		}
		v += ")"
	}
	return v + ", guilty level " + strconv.Itoa(m.GuiltyLevel)
}

func (p *pages) resolve(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	idText := r.PostFormValue("id")
	to := "/console/report?id=" + url.QueryEscape(idText)
	// The command's own rules check the form (CheckResolveArgs), each
	// field named as the form names it.
	days := 0
	if text := strings.TrimSpace(r.PostFormValue("days")); text != "" {
		n, err := strconv.Atoi(text)
		if err != nil {
			consolepage.Back(w, r, to, "", fmt.Errorf("days must be a whole number, 0..%d", MaxResolveDays))
			return
		}
		days = n
	}
	ra, err := CheckResolveArgs(idText, r.PostFormValue("action"), days, r.PostFormValue("note"), func(field string) string { return field })
	if err != nil {
		consolepage.Back(w, r, to, "", formError(err))
		return
	}
	if ra.Action != rules.ActionDismiss {
		// A warning or suspension changes the reportee's account: not one
		// of another operator's (consolepage.Guard).
		rp, err := Load(p.sys.DB(), ra.ID)
		if err == nil {
			err = consolepage.Guard(r, rp.Reportee.ID)
		} else if errors.Is(err, ErrUnknownReport) || errors.Is(err, storage.ErrNotFound) {
			err = nil // Resolve says so
		}
		if err != nil {
			consolepage.Back(w, r, to, "", formError(err))
			return
		}
	}
	now := p.now()
	rp, m, err := Resolve(ctx, p.sys, ra, consolepage.Operator(r), now)
	if err != nil {
		consolepage.Back(w, r, to, "", formError(err))
		return
	}
	var out bytes.Buffer
	_ = FormatResolved(&out, rp, m, now)
	consolepage.Back(w, r, to, strings.TrimSpace(out.String()), nil)
}

// formError words a failure of the resolve form for the operator: the
// area's own sentence where it has one.
func formError(err error) error {
	for _, kind := range []error{ErrUsage, ErrBadReportID} {
		if d, ok := detail.Of(err, kind); ok {
			return errors.New(d)
		}
	}
	if d, ok := detail.Of(err, ErrReporteeDeleted); ok {
		return errors.New("the report is still open, nothing changed: " + d)
	}
	if d, ok := detail.Of(err, ErrAlreadyResolved); ok {
		return fmt.Errorf("report already resolved: %s (a report is resolved once)", d)
	}
	if errors.Is(err, ErrUnknownReport) {
		return errors.New("no such report")
	}
	return err
}
