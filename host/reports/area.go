package reports

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/failure/detail"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
	rules "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// areaName is the area's name in routes, logs and plugin state: the
// registry's.
var areaName = string(reportsapi.Area)

// maxRecent bounds how many of a reporter's latest reports one submission
// reads to count those in the window: the limits refuse long before.
const maxRecent = 1000

// ErrUnknownReport: no report has the given ID.
var ErrUnknownReport = errors.New("no such report")

// Deps are what the served area needs.
type Deps struct {
	Sys     *actors.System
	Login   *login.Service
	Decider sdk.Caller // the area's supervisor in a server; a *sdk.Plugin in tests
	Config  Config
	Now     func() time.Time // nil: time.Now
	Log     *slog.Logger
}

// Area serves the reports endpoints over the accounts' actors, the login
// service and the reports plugin. It implements Backend.
type Area struct {
	d   Deps
	h   *Handlers
	log *slog.Logger
}

var _ Backend = (*Area)(nil)

// New builds the area.
func New(d Deps) (*Area, error) {
	switch {
	case d.Sys == nil || d.Login == nil:
		return nil, errors.New("reports: Sys and Login are required")
	case d.Decider == nil:
		return nil, errors.New("reports: no decider (is the reports plugin running?)")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	d.Config.Limits = d.Config.Limits.WithDefaults()
	a := &Area{d: d, log: d.Log.With("area", areaName)}
	if err := keepCounts(context.Background(), d.Sys, a.log); err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	a.h = NewHandlers(a, d.Config, d.Now, d.Log)
	return a, nil
}

// Routes are the five paths the area serves (PathUnusedRap is not one).
// SetAddressRate changes Config.PerAddress (limits.reports_per_address, a
// configuration reload): what an address spent stays spent, capped at the
// new burst; a zero rate turns the budget off.
func (a *Area) SetAddressRate(r limit.Rate) { a.h.byAddress.SetRate(r) }

// /rap/report2.php belongs to the site URL and is served on this listener.
func (a *Area) Routes() []server.Route {
	h := a.h
	// Every route reads its request itself (repeated fields, the client's
	// address); a failure is answered from the area's table of causes
	// (errors.go) in the route's shape.
	return []server.Route{
		area.NewRoute(h.replies, area.Route[*wire.Request, Report2Reply]{Path: PathReport2, Decode: area.RawRequest, Outcome: report2Outcome,
			// Each report of the request is judged alone: a refusal is
			// one report's, not the request's.
			Serve: func(ctx context.Context, r *wire.Request) (Report2Reply, error) { return h.Report2(ctx, r), nil },
			Fail:  func(area.Failure[*wire.Request, Report2Reply]) any { return Report2Reply{"false"} },
			Doc: server.Doc{
				Summary: "Files one to ten player reports at once (the site URL's report form; served on the game listener).",
				Form:    report2Form{},
				Reply: "PHP array `[\"true\", \"<n>\"]` when n >= 1 reports were accepted, `[\"false\"]` when none was (the client ignores the body). " +
					"A missing account_id or cookie, or arrays of different lengths, refuse the whole request; otherwise each report is judged alone (unknown player, bad type, " +
					"self-report, limits, the plugin's refusal) and the accepted ones are stored in one commit.",
			}}),
		area.NewRoute(h.replies, area.Route[*wire.Request, ReportReply]{Path: PathReport, Decode: area.RawRequest, Serve: h.report, Outcome: reportOutcome,
			Fail: func(f area.Failure[*wire.Request, ReportReply]) any { return reportFailed(f.Answer) },
			Doc: server.Doc{
				Summary:    "Files one player report from the in-game report dialog.",
				Form:       masterReportForm{},
				ReplyValue: ReportReply{},
				Reply: "Accepted: `success` b:1, `report_success` 1, `report_enabled` true. Refused or failed: `success` the string \"false\", " +
					"`report_success` 2 and `message`, the reason in words (host/reports/errors.go). Reporting disabled: `success` b:1, " +
					"`report_success` 3, `report_enabled` false. The two extras follow. Every field but `report_description` and `match_id` must be sent.",
			}}),
		area.NewRoute(h.replies, area.Route[*wire.Request, InfoReply]{Path: PathReportInfo, Decode: area.RawRequest, Serve: h.reportInfo, Outcome: infoOutcome,
			Fail: func(area.Failure[*wire.Request, InfoReply]) any { return InfoReply{} },
			Doc: server.Doc{
				Summary:    "The account's reporting status: a running warning or suspension, shown once as a popup.",
				Form:       infoForm{},
				ReplyValue: InfoReply{},
				Reply: "`status` 0 normal, 1 warning, 2 suspended; `reason` the reason's title and the moderator's note; `guiltyLevel` the warnings " +
					"and suspensions ever received; `endDate` `YYYY-MM-DD hh:mm:ss` UTC or \"\"; `forcePopup` true once per warning or suspension. " +
					"A missing field or a bad session: `success` false with the other keys zero.",
			}}),
		area.NewRoute(h.replies, area.Route[*wire.Request, PlayerList]{Path: PathPlayerList, Decode: area.RawRequest,
			Serve: func(ctx context.Context, r *wire.Request) (PlayerList, error) { return h.PlayerList(ctx, r), nil },
			Fail:  func(area.Failure[*wire.Request, PlayerList]) any { return PlayerList{} },
			Doc: server.Doc{
				Summary: "The players of a match, for the site's report form. The server keeps no match data.",
				Reply: "Positional PHP array: index 0 is 1 when players were found, else 0; index 1+s the nickname in slot s (0-9), 11+s the slot id s. " +
					"No request field is read; without match data the reply is always `a:1:{i:0;i:0;}`.",
			}}),
		area.NewRoute(h.replies, area.Route[*wire.Request, MatchList]{Path: PathMatchList, Decode: area.RawRequest,
			Serve: func(ctx context.Context, r *wire.Request) (MatchList, error) { return h.MatchList(ctx, r), nil },
			Fail:  func(area.Failure[*wire.Request, MatchList]) any { return MatchList{} },
			Doc: server.Doc{
				Summary: "A player's recent matches, for the site's report form. The server keeps no match data.",
				Reply: "Positional PHP array: index 0 is 1 when matches follow, else 0, then one match id per index. " +
					"No request field is read; without match data the reply is always `a:1:{i:0;i:0;}`.",
			}}),
	}
}

// --- Backend ---

// Authenticate implements Backend.
func (a *Area) Authenticate(_ context.Context, cookie string) (Account, error) {
	sess, err := a.d.Login.Authenticate(cookie)
	if errors.Is(err, login.ErrInvalidCookie) {
		return Account{}, fmt.Errorf("%w: %w", ErrBadCookie, err)
	} else if err != nil {
		return Account{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	acct, err := a.d.Sys.DB().AccountProfile(sess.AccountID)
	if err != nil {
		return Account{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return accountOf(acct), nil
}

func accountOf(a *storage.Account) Account {
	return Account{ID: a.ID, Owner: a.SuperID, Nickname: a.Nickname}
}

// LookupPlayer implements Backend. A player is found by nickname (the
// storage's nickname index, not the login, which an operator may have made
// differ): the account spelling it exactly, else the one account spelling
// it in another case. A nickname several accounts share (in the same
// spelling, or only in other cases) names no one player: it is refused as
// unknown rather than filed against the wrong account.
func (a *Area) LookupPlayer(_ context.Context, nickname string) (Account, error) {
	db := a.d.Sys.DB()
	ids, err := db.NicknameAccounts(nickname)
	if err != nil {
		return Account{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	var exact, folded []*storage.Account
	for _, id := range ids {
		acct, err := db.AccountProfile(id)
		if err != nil {
			return Account{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		if acct.Nickname == nickname {
			exact = append(exact, acct)
		} else {
			folded = append(folded, acct)
		}
	}
	switch {
	case len(exact) == 1:
		return accountOf(exact[0]), nil
	case len(exact) == 0 && len(folded) == 1:
		return accountOf(folded[0]), nil
	case len(exact)+len(folded) == 0:
		return Account{}, fmt.Errorf("%w: %q", ErrUnknownPlayer, nickname)
	}
	return Account{}, fmt.Errorf("%w: %q is the nickname of %d accounts", ErrUnknownPlayer, nickname, len(ids))
}

// Submit implements Backend: one change in the reporter's actor.
func (a *Area) Submit(ctx context.Context, reporter Account, drafts []Draft) ([]Outcome, error) {
	res, err := actors.Apply(ctx, a.d.Sys, reporter.ID, (&submitChange{ctx: ctx, decider: a.d.Decider,
		reporter: reporter, drafts: drafts, now: a.d.Now(), limits: a.d.Config.Limits}).apply)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return res, nil
}

// ReportingStatus implements Backend: one change in the account's actor,
// which clears a pending popup.
func (a *Area) ReportingStatus(ctx context.Context, id storage.AccountID) (Moderation, error) {
	res, err := actors.Apply(ctx, a.d.Sys, id, statusChange{now: a.d.Now()}.apply)
	if err != nil {
		return Moderation{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return res, nil
}

// submitChange judges and files the drafts of one request in the
// reporter's actor: it reads the reporter's own records (last sequence,
// reports in the window, latest SysInfo) and the kept counts of the
// reportees' open reports (counts.go: a few reads, whatever the number of
// reports), asks the plugin once per draft (Assess), and writes every
// accepted report with its queue and reportee index entries and its kept
// counts, the reporter's new last sequence and the plugin's state, in one
// commit. A plugin error or a decision that fails the contract's check
// refuses that draft only; nothing is altered.
type submitChange struct {
	ctx      context.Context
	decider  sdk.Caller
	reporter Account
	drafts   []Draft
	now      time.Time
	limits   reportsapi.Limits
}

func (c *submitChange) apply(tx *actors.Tx) ([]Outcome, error) {
	db := tx.DB()
	me, err := getOr(reporterRecords, db, tx.ID(), "")
	if err != nil {
		return nil, err
	}
	since := c.now.Add(-Window)
	var recent []Report
	for seq := me.LastSeq; seq >= 1 && len(recent) < maxRecent; seq-- {
		r, err := reportRecords.Get(db, tx.ID(), seqKey(seq))
		if err != nil {
			return nil, err
		}
		if !r.Received.After(since) {
			break
		}
		recent = append(recent, *r)
	}
	si, err := getOr(sysInfoRecords, db, tx.ID(), "")
	if err != nil {
		return nil, err
	}
	state, err := tx.PluginState(areaName)
	if err != nil {
		return nil, err
	}
	newState := state
	type reporters struct{ all, young int }
	others := map[storage.AccountID]reporters{}
	var countErr error
	count := func(reportee storage.AccountID) reporters {
		if n, ok := others[reportee]; ok {
			return n
		}
		var n reporters
		var err error
		n.all, n.young, err = openReporters(db, reportee, tx.ID(), tx.View().Created, c.now, c.limits.NewAccountAge)
		if err != nil && countErr == nil {
			countErr = err
		}
		others[reportee] = n
		return n
	}
	b := Batch{Reporter: c.reporter, ReporterCreated: tx.View().Created, SysInfo: si.String(), Now: c.now, Recent: recent, LastSeq: me.LastSeq,
		Limits:            c.limits,
		OtherReporters:    func(reportee storage.AccountID) int { return count(reportee).all },
		NewOtherReporters: func(reportee storage.AccountID) int { return count(reportee).young }}
	decide := func(f reportsapi.Facts) (reportsapi.Decision, error) {
		res, err := reportsapi.Assess.Decide(c.ctx, c.decider, sdk.Call[reportsapi.Facts]{Facts: f, State: newState})
		if errors.Is(err, sdk.ErrInvalidDecision) {
			return reportsapi.Decision{}, fmt.Errorf("%w: %w", ErrBadDecision, err)
		} else if err != nil {
			return reportsapi.Decision{}, err
		}
		newState = res.State
		return res.Decision, nil
	}
	outs := Assess(b, c.drafts, decide)
	if countErr != nil {
		return nil, countErr
	}
	if err := c.ctx.Err(); err != nil {
		// The asker has gone: committing now would hide a write behind an
		// error reply.
		return nil, err
	}
	last := me.LastSeq
	for i := range outs {
		if !outs[i].Accepted() {
			continue
		}
		r := outs[i].Report
		if err := fileReport(tx, &r); err != nil {
			return nil, err
		}
		last = r.ID.Seq
	}
	if last != me.LastSeq {
		if err := reporterRecords.Put(tx, "", &reporterState{LastSeq: last}); err != nil {
			return nil, err
		}
	}
	if !bytes.Equal(newState, state) {
		tx.SetPluginState(areaName, newState)
	}
	return outs, nil
}

// fileReport writes report r of the reporter whose actor runs tx: the
// report, its queue and reportee index entries, and one more open report
// of the reporter against the reportee in the kept counts.
func fileReport(tx *actors.Tx, r *Report) error {
	if err := checkCountsKept(tx.DB()); err != nil {
		return err
	}
	if err := reportRecords.Put(tx, seqKey(r.ID.Seq), r); err != nil {
		return err
	}
	if err := queueIndex.Put(tx, queueKey(r), &indexValue{Reportee: r.Reportee.ID}); err != nil {
		return err
	}
	if err := reporteeIndex.Put(tx, reporteeKey(r.Reportee.ID, r.ID.Seq), &indexValue{ReporterCreated: tx.View().Created}); err != nil {
		return err
	}
	countOpen(tx, r.Reportee.ID, tx.ID(), tx.View().Created, 1)
	return nil
}

func seqOfReporteeKey(key string) (uint32, error) {
	if len(key) != 8 {
		return 0, fmt.Errorf("%w: reportee index key of %d bytes", storage.ErrCorrupt, len(key))
	}
	k := []byte(key[4:])
	return uint32(k[0])<<24 | uint32(k[1])<<16 | uint32(k[2])<<8 | uint32(k[3]), nil
}

// statusChange answers the moderation state that holds for the account at
// now (familyModeration) and clears its own pending popup, so it shows
// once.
type statusChange struct{ now time.Time }

func (c statusChange) apply(tx *actors.Tx) (Moderation, error) {
	m, err := getOr(moderationRecords, tx.DB(), tx.ID(), "")
	if err != nil {
		return Moderation{}, err
	}
	fm, err := familyModeration(tx.DB(), tx.View(), *m, c.now, nil)
	if err != nil {
		return Moderation{}, err
	}
	if m.PopupPending && fm == *m {
		// Shown now (not while another account's suspension is what
		// shows: the account's own popup waits for its own turn).
		shown := m.Shown()
		if err := moderationRecords.Put(tx, "", &shown); err != nil {
			return Moderation{}, err
		}
	}
	return fm, nil
}

// familyModeration is the moderation state that holds for account a, whose
// own is own, at now: a suspension is the player's, so while a is not
// suspended itself, the running suspension of another account of its
// family (its main account, or another sub-account of it) holds for it
// too, shown as that account's (its popup already shown: it is that
// account's to clear). Sub-accounts are one player's other nicknames (the
// reports area takes them for oneself, SameOwner); before, a suspended
// player logged in on a sub-account with susp_id 0 and a normal status.
//
// family is the family's account ids when the caller has read them (the
// login's, login.ClientInfo.Family), else nil: they are read.
func familyModeration(db *storage.DB, a *storage.Account, own Moderation, now time.Time, family []storage.AccountID) (Moderation, error) {
	if own.Suspended(now) {
		return own, nil
	}
	if family == nil {
		subs, err := db.SubAccounts(a.SuperID)
		if err != nil {
			return Moderation{}, err
		}
		family = append([]storage.AccountID{a.SuperID}, subs...)
	}
	for _, id := range family {
		if id == a.ID {
			continue
		}
		m, err := ModerationOf(db, id)
		if err != nil {
			return Moderation{}, err
		}
		if m.Suspended(now) {
			m.PopupPending = false
			return m, nil
		}
	}
	return own, nil
}

// SessionHook is the login service's hook for this area: in the commit
// that opens a session it keeps the client's latest SysInfo (only when it
// changed; never logged) and answers susp_id from the account's
// moderation state at the session's time. A suspended account still logs
// in (see the package doc).
func SessionHook(tx *actors.Tx, c login.ClientInfo, now time.Time) (login.RecordFields, error) {
	db := tx.DB()
	if c.PreAuthSysInfo != "" || c.SysInfo != "" {
		old, err := getOr(sysInfoRecords, db, tx.ID(), "")
		if err != nil {
			return login.RecordFields{}, err
		}
		si := sysInfo{PreAuth: cut(c.PreAuthSysInfo, maxSysInfoBytes), SRPAuth: cut(c.SysInfo, maxSysInfoBytes)}
		if si.PreAuth == "" {
			si.PreAuth = old.PreAuth
		}
		if si != *old {
			if err := sysInfoRecords.Put(tx, "", &si); err != nil {
				return login.RecordFields{}, err
			}
		}
	}
	m, err := getOr(moderationRecords, db, tx.ID(), "")
	if err != nil {
		return login.RecordFields{}, err
	}
	fm, err := familyModeration(db, tx.View(), *m, now, c.Family)
	if err != nil {
		return login.RecordFields{}, err
	}
	return fm.LoginFields(tx.View().Standing, now), nil
}

// LoginFields is what the login record shows of m for an account of
// stored standing base at now (SessionHook's answer; the console's preview
// of the next login shows the same): the running timed suspension's
// susp_id. With no timed suspension (a report's or an operator's, see
// Suspend) it sets nothing: the account's own susp_id stands (set
// directly, open-ended, by older consoles; Lift clears it).
func (m Moderation) LoginFields(base int, now time.Time) login.RecordFields {
	if !m.Suspended(now) {
		return login.RecordFields{}
	}
	suspID, _ := m.SessionFields(base, now)
	return login.RecordFields{SuspID: suspID}
}

// cut bounds untrusted text to n bytes, at a character boundary, and
// cleans it (CleanText: valid UTF-8, which a protobuf string must be, no
// control characters) whatever its length. Before, text within the bound
// was stored as sent, and a SysInfo that was not UTF-8 failed the commit
// of the session it came with: a right password refused.
func cut(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	clean, _ := CleanText(s, n)
	return clean
}

// --- moderation (operator commands) ---

// Load reads one report, joined with its resolution (the reportee's, or
// the reporter's dismissal of a report whose reportee was deleted) and
// with whether its reportee was deleted.
func Load(db *storage.DB, id ReportID) (*Report, error) {
	r, err := reportRecords.Get(db, id.Reporter, seqKey(id.Seq))
	if errors.Is(err, storage.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrUnknownReport, id)
	} else if err != nil {
		return nil, err
	}
	res, err := resolutionRecords.Get(db, r.Reportee.ID, idKey(id))
	if errors.Is(err, storage.ErrNotFound) {
		res, err = orphanResolutions.Get(db, id.Reporter, seqKey(id.Seq))
	}
	switch {
	case err == nil:
		r.Resolution = res
	case !errors.Is(err, storage.ErrNotFound):
		return nil, err
	}
	if r.ReporteeDeleted, err = accountDeleted(db, r.Reportee.ID); err != nil {
		return nil, err
	}
	return r, nil
}

// accountDeleted reports whether account id no longer exists: for a
// report's reportee, which existed when the report was filed, that it was
// deleted since (an account is never restored, its id never reused).
func accountDeleted(db *storage.DB, id storage.AccountID) (bool, error) {
	_, err := db.AccountProfile(id)
	if errors.Is(err, storage.ErrNotFound) {
		return true, nil
	}
	return false, err
}

// List reads the reports the filter selects, in the queue's order
// (Sort). Every report is in the queue index, written with it.
func List(db *storage.DB, f ListFilter) ([]Report, error) {
	var rs []Report
	resolutions := map[storage.AccountID]map[ReportID]Resolution{}
	orphans, err := orphanResolutionsAll(db)
	if err != nil {
		return nil, err
	}
	err = queueIndex.Each(db, "", func(key string, writer storage.AccountID, v *indexValue) error {
		if len(key) != 12 {
			return fmt.Errorf("%w: queue key of %d bytes", storage.ErrCorrupt, len(key))
		}
		k := []byte(key[8:])
		seq := uint32(k[0])<<24 | uint32(k[1])<<16 | uint32(k[2])<<8 | uint32(k[3])
		r, err := reportRecords.Get(db, writer, seqKey(seq))
		if err != nil {
			return err
		}
		res, ok := resolutions[r.Reportee.ID]
		if !ok {
			if res, err = resolutionsOf(db, r.Reportee.ID); err != nil {
				return err
			}
			resolutions[r.Reportee.ID] = res
		}
		if x, ok := res[r.ID]; ok {
			r.Resolution = &x
		} else if x, ok := orphans[r.ID]; ok {
			r.Resolution = &x
		}
		if f.Match(r) {
			rs = append(rs, *r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	Sort(rs)
	return rs, nil
}

// ModerationOf reads an account's moderation state.
func ModerationOf(db *storage.DB, id storage.AccountID) (Moderation, error) {
	m, err := getOr(moderationRecords, db, id, "")
	if err != nil {
		return Moderation{}, err
	}
	return *m, nil
}

// Resolve records a moderator's verdict on a report through the
// reportee's actor: the resolution and the reportee's new moderation state
// in one commit. A report is resolved once (ErrAlreadyResolved).
//
// A report whose reportee was deleted (before Load or since: the deleted
// account's actor answers actors.ErrNoAccount) has no one to warn or
// suspend: those are refused (ErrReporteeDeleted) and nothing is written.
// A dismissal is recorded by the reporter's actor, beside the report
// (orphanDismissal); the Moderation answered is then the zero value and
// the report's ReporteeDeleted is set.
func Resolve(ctx context.Context, sys *actors.System, args ResolveArgs, moderator string, now time.Time) (*Report, Moderation, error) {
	r, err := Load(sys.DB(), args.ID)
	if err != nil {
		return nil, Moderation{}, err
	}
	if err := CheckResolvable(r); err != nil {
		return nil, Moderation{}, err
	}
	// The counts of a database the server never started on (an offline
	// command after an upgrade) are built first: a resolution changes one.
	if err := keepCounts(ctx, sys, slog.Default()); err != nil {
		return nil, Moderation{}, fmt.Errorf("reports: %w", err)
	}
	res := args.Resolution(moderator, now)
	out, err := actors.Apply(ctx, sys, r.Reportee.ID, (&resolveChange{report: r, res: res}).apply)
	if errors.Is(err, actors.ErrNoAccount) {
		r.ReporteeDeleted = true
		out, err = Moderation{}, resolveOrphan(ctx, sys, r, res)
	}
	if err != nil {
		return nil, Moderation{}, err
	}
	r.Resolution = &res
	return r, out, nil
}

// resolveOrphan records res, a verdict on report r whose reportee was
// deleted: a dismissal through the reporter's actor; a warning or a
// suspension is refused.
func resolveOrphan(ctx context.Context, sys *actors.System, r *Report, res Resolution) error {
	if res.Action != rules.ActionDismiss {
		return detail.New(ErrReporteeDeleted, "the reported player %s (account %d) was deleted, so there is no one to %s; the report can only be dismissed",
			quote(r.Reportee.Nickname), r.Reportee.ID, res.Action)
	}
	_, err := actors.Apply(ctx, sys, r.ID.Reporter, (&orphanDismissal{report: r, res: res}).apply)
	if errors.Is(err, actors.ErrNoAccount) {
		// The reporter was deleted since Load, and its reports with it.
		return fmt.Errorf("%w: %s", ErrUnknownReport, r.ID)
	}
	return err
}

// orphanDismissal runs in the reporter's actor, for a report whose
// reportee was deleted: the dismissal, beside the report
// (orphanResolutions), and one open report fewer of the reporter against
// the reportee in the kept counts, in one commit. The reportee's own
// resolutions went with its account, and no actor of it will write one
// again, so the report is resolved here at most once, and never in both
// places.
type orphanDismissal struct {
	report *Report
	res    Resolution
}

func (c *orphanDismissal) apply(tx *actors.Tx) (struct{}, error) {
	db := tx.DB()
	id, reportee := c.report.ID, c.report.Reportee.ID
	if _, err := reportRecords.Get(db, tx.ID(), seqKey(id.Seq)); errors.Is(err, storage.ErrNotFound) {
		return struct{}{}, fmt.Errorf("%w: %s", ErrUnknownReport, id)
	} else if err != nil {
		return struct{}{}, err
	}
	if old, err := orphanResolutions.Get(db, tx.ID(), seqKey(id.Seq)); err == nil {
		r := *c.report
		r.Resolution = old
		return struct{}{}, CheckResolvable(&r)
	} else if !errors.Is(err, storage.ErrNotFound) {
		return struct{}{}, err
	}
	if gone, err := accountDeleted(db, reportee); err != nil {
		return struct{}{}, err
	} else if !gone {
		return struct{}{}, fmt.Errorf("reports: %s: the reportee's account %d exists; its own actor resolves the report", id, reportee)
	}
	if err := checkCountsKept(db); err != nil {
		return struct{}{}, err
	}
	created, found, err := reporterCreated(db, reportee, id)
	if err != nil {
		return struct{}{}, err
	}
	if err := orphanResolutions.Put(tx, seqKey(id.Seq), &c.res); err != nil {
		return struct{}{}, err
	}
	if found {
		closeOpen(tx, reportee, tx.ID(), created)
	}
	return struct{}{}, nil
}

// resolveChange runs in the reportee's actor: the resolution, the
// reportee's moderation state and one open report fewer of the reporter
// against the reportee in the kept counts, in one commit.
type resolveChange struct {
	report *Report
	res    Resolution
}

func (c *resolveChange) apply(tx *actors.Tx) (Moderation, error) {
	db := tx.DB()
	if old, err := resolutionRecords.Get(db, tx.ID(), idKey(c.report.ID)); err == nil {
		r := *c.report
		r.Resolution = old
		return Moderation{}, CheckResolvable(&r)
	} else if !errors.Is(err, storage.ErrNotFound) {
		return Moderation{}, err
	}
	m, err := getOr(moderationRecords, db, tx.ID(), "")
	if err != nil {
		return Moderation{}, err
	}
	if err := checkCountsKept(db); err != nil {
		return Moderation{}, err
	}
	created, found, err := reporterCreated(db, tx.ID(), c.report.ID)
	if err != nil {
		return Moderation{}, err
	}
	next := m.Apply(c.res, c.report.Reason, c.res.Time)
	if err := resolutionRecords.Put(tx, idKey(c.report.ID), &c.res); err != nil {
		return Moderation{}, err
	}
	if found {
		closeOpen(tx, tx.ID(), c.report.ID.Reporter, created)
	}
	if next != *m {
		if err := moderationRecords.Put(tx, "", &next); err != nil {
			return Moderation{}, err
		}
	}
	return next, nil
}

// Show writes one report and its reportee's moderation state at now (or
// that the reportee was deleted).
func Show(db *storage.DB, id ReportID, now time.Time, w io.Writer) error {
	r, err := Load(db, id)
	if err != nil {
		return err
	}
	if r.ReporteeDeleted {
		return FormatShow(w, r, nil, now)
	}
	m, err := ModerationOf(db, r.Reportee.ID)
	if err != nil {
		return err
	}
	return FormatShow(w, r, &m, now)
}
