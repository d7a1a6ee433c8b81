package console

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/honmaster/masterserver/host/reports"
	rules "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
)

// Reports: the moderation queue of host/reports, read with reports.List and
// resolved with reports.Resolve, the functions of "honmaster reports list" and
// "honmaster reports resolve"; the form's fields are checked by
// reports.ParseResolveArgs, the command's own parser.

// reportRowsLimit bounds the rows of the queue page.
const reportRowsLimit = 200

// reportFilter is the queue page's query.
type reportFilter struct {
	Status   string // open (default), resolved, dismissed, warned, suspended, any
	Reason   string // a reason's short name, "" for any
	Reporter string // part of the reporter's nickname, case-insensitive
	Reportee string // part of the reportee's nickname, case-insensitive
}

type option struct{ Value, Label string }

type reportRow struct {
	ID, Status, Received, Reporter, Reportee, Reason, Text string
	Priority                                               int
}

type reportsData struct {
	F        reportFilter
	Statuses []option
	Reasons  []option
	Rows     []reportRow
	Total    int
	More     bool
}

func statusOptions() []option {
	out := []option{{"open", "open"}, {"resolved", "resolved (any verdict)"}}
	for _, s := range rules.Statuses() {
		if s != rules.StatusOpen {
			out = append(out, option{s.String(), s.String()})
		}
	}
	return append(out, option{"any", "any"})
}

func reasonOptions() []option {
	var out []option
	for _, r := range reportsapi.Reasons() {
		out = append(out, option{r.String(), r.Title()})
	}
	return out
}

// match applies the filter's parts that reports.ListFilter does not
// carry.
func (f reportFilter) match(r *reports.Report) bool {
	if f.Status == "resolved" && r.Status() == rules.StatusOpen {
		return false
	}
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

func (c *Console) reportsPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := reportFilter{Status: q.Get("status"), Reason: q.Get("reason"),
		Reporter: strings.TrimSpace(q.Get("reporter")), Reportee: strings.TrimSpace(q.Get("reportee"))}
	if f.Status == "" {
		f.Status = "open"
	}
	var lf reports.ListFilter
	switch f.Status {
	case "any", "resolved":
	default:
		s, ok := rules.ParseStatus(f.Status)
		if !ok {
			f.Status, s = "open", rules.StatusOpen
		}
		lf.Status = s
	}
	d := reportsData{F: f, Statuses: statusOptions(), Reasons: reasonOptions()}
	rs, err := reports.List(c.d.Sys.DB(), lf)
	if err != nil {
		r.URL.RawQuery += "&error=" + urlQuery(operatorError(err))
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
			Received: rp.Received.UTC().Format(reports.TimeLayout), Reporter: rp.Reporter.Nickname, Reportee: rp.Reportee.Nickname,
			Reason: rp.Reason.Title(), Text: reports.Preview(rp.Text, 60)})
	}
	c.render(w, r, "reports", "Reports", d, "")
}

type reportData struct {
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
	Actions                         []option
	MaxDays                         int
	DefaultWarnDays, DefaultSusDays int
}

// person is a reporter or reportee, with the login that opens their
// account page ("" when the account is gone).
type person struct {
	Nickname, Login string
	ID              storage.AccountID
}

func (c *Console) person(a reports.Account) person {
	p := person{Nickname: a.Nickname, ID: a.ID}
	if acct, err := c.d.Sys.DB().AccountProfile(a.ID); err == nil {
		p.Login = acct.Login
	}
	return p
}

func (c *Console) reportPage(w http.ResponseWriter, r *http.Request) {
	id, err := reports.ParseReportID(r.URL.Query().Get("id"))
	if err != nil {
		back(w, r, "/console/reports", "", err)
		return
	}
	db := c.d.Sys.DB()
	rp, err := reports.Load(db, id)
	if err != nil {
		back(w, r, "/console/reports", "", err)
		return
	}
	d := reportData{ID: rp.ID.String(), Status: rp.Status().String(), Open: rp.Resolution == nil, Priority: rp.Priority,
		Received: rp.Received.UTC().Format(reports.TimeLayout), Via: rp.Source.String(),
		Reporter: c.person(rp.Reporter), Reportee: c.person(rp.Reportee),
		Reason: rp.Reason.Title(), Match: rp.Match, Minute: rp.Minute, Text: rp.Text, RawText: rp.RawText,
		Truncated: rp.Truncated, SysInfo: rp.SysInfo, MaxDays: reports.MaxResolveDays,
		DefaultWarnDays: reports.DefaultWarningDays, DefaultSusDays: 3}
	for _, a := range []rules.Action{rules.ActionDismiss, rules.ActionWarn, rules.ActionSuspend} {
		d.Actions = append(d.Actions, option{a.String(), a.String()})
	}
	if res := rp.Resolution; res != nil {
		d.Resolution = res.Verdict() + " by " + res.Moderator + " at " + res.Time.UTC().Format(reports.TimeLayout)
		d.Note = res.Note
	}
	if m, err := reports.ModerationOf(db, rp.Reportee.ID); err == nil {
		d.Standing = standingText(m, c.d.Now())
	}
	c.render(w, r, "report", "Report "+d.ID, d, "")
}

// standingText words a moderation state at now.
func standingText(m reports.Moderation, now time.Time) string {
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

func (c *Console) resolveReport(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	idText := r.PostFormValue("id")
	to := "/console/report?id=" + urlQuery(idText)
	// The command's own parser checks the form: the same rules as
	// "honmaster reports resolve ID --action A --days N --note T".
	args := []string{idText, "--action=" + r.PostFormValue("action"), "--note=" + r.PostFormValue("note")}
	if days := strings.TrimSpace(r.PostFormValue("days")); days != "" {
		if _, err := strconv.Atoi(days); err != nil {
			back(w, r, to, "", fmt.Errorf("days must be a whole number, 0..%d", reports.MaxResolveDays))
			return
		}
		args = append(args, "--days="+days)
	}
	ra, err := reports.ParseResolveArgs(args)
	if err != nil {
		back(w, r, to, "", err)
		return
	}
	now := c.d.Now()
	rp, m, err := reports.Resolve(ctx, c.d.Sys, ra, Operator(r), now)
	if err != nil {
		back(w, r, to, "", err)
		return
	}
	var out bytes.Buffer
	_ = reports.FormatResolved(&out, rp, m, now)
	c.d.Log.Info("console report resolved", "operator", Operator(r), "report", rp.ID.String(), "action", ra.Action.String(), "days", ra.Days)
	back(w, r, to, strings.TrimSpace(out.String()), nil)
}
