package reports

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// Backend is what the handlers need from the rest of the server. Phase 2
// implements it over the login service, the accounts' actors and the
// reports plugin; tests use a fake.
type Backend interface {
	// Authenticate returns the account of a session cookie; its errors
	// match ErrBadCookie (no such session) or ErrUnavailable.
	Authenticate(ctx context.Context, cookie string) (Account, error)
	// LookupPlayer returns the account with the given nickname; its errors
	// match ErrUnknownPlayer or ErrUnavailable.
	LookupPlayer(ctx context.Context, nickname string) (Account, error)
	// Submit judges and files drafts through the reporter's actor: it reads
	// the reporter's recent reports and latest SysInfo, runs Assess with the
	// area's decider, and stores every accepted report (its record, its
	// queue entry and its reportee index entry) in one synced commit before
	// returning. It returns one outcome per draft, in order; an error
	// means nothing was stored.
	Submit(ctx context.Context, reporter Account, drafts []Draft) ([]Outcome, error)
	// ReportingStatus returns the account's moderation state as it was
	// when asked and, if a popup was pending, marks it shown (through the
	// account's actor), so the popup appears once.
	ReportingStatus(ctx context.Context, account storage.AccountID) (Moderation, error)
}

// Config is the area's configuration.
type Config struct {
	// Disabled switches reporting off: both report paths answer
	// "disabled" and store nothing (reportinforequest still answers, so
	// warnings and suspensions stay visible). The zero Config reports.
	Disabled bool
	Limits   reportsapi.Limits
	// PerAddress is the budget of reports filed from one client address
	// over all its accounts (limits.reports_per_address); the zero Rate
	// is no budget. AddressKeys bounds the addresses remembered (0:
	// limit.DefaultMaxKeys).
	PerAddress  limit.Rate
	AddressKeys int
}

// Handlers serve the area's endpoints. Each returns the reply value to
// serialize (always HTTP 200); phase 2 mounts them on the router.
type Handlers struct {
	backend   Backend
	cfg       Config
	now       func() time.Time
	replies   *area.Replies // the area's table of causes (errors.go), with its logger
	byAddress *limit.Keyed  // a zero rate: no per-address budget
}

// NewHandlers builds the handlers. now may be nil (time.Now); log may be
// nil (discard).
func NewHandlers(b Backend, cfg Config, now func() time.Time, log *slog.Logger) *Handlers {
	if now == nil {
		now = time.Now
	}
	cfg.Limits = cfg.Limits.WithDefaults()
	return &Handlers{backend: b, cfg: cfg, now: now, replies: replies.WithLog(log),
		byAddress: limit.NewAdjustable(cfg.PerAddress, cfg.AddressKeys, now)}
}

// Report2 serves /rap/report2.php: several reports in one request, each
// judged on its own.
func (h *Handlers) Report2(ctx context.Context, r *wire.Request) Report2Reply {
	if h.cfg.Disabled {
		return Report2Reply{"false"}
	}
	req, err := ParseReport2(r, h.cfg.Limits.MaxTextRunes)
	if err != nil {
		h.failed(PathReport2, err)
		return Report2Reply{"false"}
	}
	outs, err := h.submit(ctx, req.AccountID, req.Cookie, r.RemoteIP, SourceReport2, req.Items)
	if err != nil {
		h.failed(PathReport2, err)
		return Report2Reply{"false"}
	}
	n := 0
	for _, o := range outs {
		if o.Accepted() {
			n++
		} else {
			h.failed(PathReport2, o.Err)
		}
	}
	if n == 0 {
		return Report2Reply{"false"}
	}
	return Report2Reply{"true", strconv.Itoa(n)}
}

// Report serves /master/report/report: one report (the route's logic is
// report; a failure is answered as reportFailed says).
func (h *Handlers) Report(ctx context.Context, r *wire.Request) ReportReply {
	rep, err := h.report(ctx, r)
	if err != nil {
		return reportFailed(h.failed(PathReport, err))
	}
	return rep
}

// report files one report. Reporting switched off is no failure: the
// client shows its "disabled" text for it.
func (h *Handlers) report(ctx context.Context, r *wire.Request) (ReportReply, error) {
	if h.cfg.Disabled {
		return ReportReply{Success: true, ReportSuccess: ReportDisabled, Message: Message(ErrDisabled)}, nil
	}
	req, err := ParseMasterReport(r, h.cfg.Limits.MaxTextRunes)
	if err != nil {
		return ReportReply{}, err
	}
	outs, err := h.submit(ctx, req.ReporterID, req.Cookie, r.RemoteIP, SourceMaster, []Item{req.Item})
	if err != nil {
		return ReportReply{}, err
	}
	if !outs[0].Accepted() {
		return ReportReply{}, outs[0].Err
	}
	return ReportReply{Success: true, ReportSuccess: ReportAccepted, ReportEnabled: true}, nil
}

// reportFailed is a failed report's reply: success "false",
// report_success 2 and the answer's message.
func reportFailed(a area.Answer) ReportReply {
	return ReportReply{ReportSuccess: ReportFailed, ReportEnabled: true, Message: a.Error}
}

// submit authenticates the reporter, resolves each item's reportee and
// submits the items without a problem that the address's budget allows
// (addr is the client's address): each one spends from it before the
// plugin judges it, so reports sent at once from many accounts of one
// address never together pass it. It returns one outcome per item.
func (h *Handlers) submit(ctx context.Context, claimed storage.AccountID, cookie, addr string, src Source, items []Item) ([]Outcome, error) {
	reporter, err := h.backend.Authenticate(ctx, cookie)
	if err != nil {
		return nil, err
	}
	if reporter.ID != claimed {
		return nil, fmt.Errorf("%w: session of %d, form names %d", ErrNotReporter, reporter.ID, claimed)
	}
	outs := make([]Outcome, len(items))
	var drafts []Draft
	var idx []int
	for i, it := range items {
		if it.Problem != nil {
			outs[i].Err = it.Problem
			continue
		}
		reportee, err := h.backend.LookupPlayer(ctx, it.ReporteeName)
		if err != nil {
			outs[i].Err = err
			continue
		}
		if ok, wait := h.byAddress.Allow(limit.AddrKey(addr)); !ok {
			outs[i].Err = fmt.Errorf("%w: %s: next in %v", ErrAddressLimit, addr, wait)
			continue
		}
		drafts = append(drafts, Draft{Source: src, Reportee: reportee, Reason: it.Reason, Text: it.Text,
			RawText: it.RawText, Truncated: it.Truncated, Match: it.Match, Minute: it.Minute})
		idx = append(idx, i)
	}
	if len(drafts) == 0 {
		return outs, nil
	}
	got, err := h.backend.Submit(ctx, reporter, drafts)
	if err != nil {
		return nil, err
	}
	if len(got) != len(drafts) {
		return nil, fmt.Errorf("%w: %d outcomes for %d reports", ErrUnavailable, len(got), len(drafts))
	}
	for j, o := range got {
		outs[idx[j]] = o
	}
	return outs, nil
}

// ReportInfo serves /master/report/reportinforequest: the account's
// reporting status. It answers for the session's own account only (the
// route's logic is reportInfo; a failure is InfoReply{}, success false).
func (h *Handlers) ReportInfo(ctx context.Context, r *wire.Request) InfoReply {
	rep, err := h.reportInfo(ctx, r)
	if err != nil {
		h.failed(PathReportInfo, err)
		return InfoReply{}
	}
	return rep
}

func (h *Handlers) reportInfo(ctx context.Context, r *wire.Request) (InfoReply, error) {
	req, err := ParseInfoRequest(r)
	if err != nil {
		return InfoReply{}, err
	}
	acct, err := h.backend.Authenticate(ctx, req.Cookie)
	if err != nil {
		return InfoReply{}, err
	}
	if acct.ID != req.AccountID {
		return InfoReply{}, fmt.Errorf("%w: session of %d, form names %d", ErrNotReporter, acct.ID, req.AccountID)
	}
	m, err := h.backend.ReportingStatus(ctx, acct.ID)
	if err != nil {
		return InfoReply{}, err
	}
	v := m.View(h.now())
	return InfoReply{Success: true, ForcePopup: v.ForcePopup, Status: int(v.Standing), Reason: v.Reason,
		GuiltyLevel: v.GuiltyLevel, EndDate: v.EndDate}, nil
}

// PlayerList serves /rap/player_list.php. Its request fields are unknown
// and the server has no match data: it answers the well-formed empty list.
func (h *Handlers) PlayerList(context.Context, *wire.Request) PlayerList { return PlayerList{} }

// MatchList serves /rap/match_list2.php: no match data, so no match.
func (h *Handlers) MatchList(context.Context, *wire.Request) MatchList { return MatchList{} }

// failed logs why a request or report was not accepted, as every failure
// of the area's routes is (area.Replies.Log: at error level when the
// server is at fault, at debug level otherwise), and returns its answer.
// Texts and SysInfo are never logged: a refusal's error names its reason.
func (h *Handlers) failed(path string, err error) area.Answer {
	a := h.replies.Answer(err)
	h.replies.Log(path, a, err)
	return a
}
