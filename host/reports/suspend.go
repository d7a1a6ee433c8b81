package reports

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/failure/detail"
	rules "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
)

// An operator's suspension without a report (the web console's "suspend")
// is the same notion as a report's: it is written into the account's one
// moderation state, for a number of days, with a reason and a note, and it
// shows in the next session record's susp_id and in reportinforequest like
// any other. Suspend is Moderation.Apply of a suspension whose Report is
// zero (the moderation state then names no report); Lift ends whatever
// suspension runs.

// SuspendArgs is an operator's suspension of one account.
type SuspendArgs struct {
	Account storage.AccountID
	Reason  reportsapi.Reason
	Days    int // 1..MaxResolveDays
	Note    string
}

// Check refuses arguments a resolution would refuse too (days out of
// 1..MaxResolveDays, an unknown reason, a note over MaxNoteRunes), and
// returns them with the note cleaned like report text.
func (a SuspendArgs) Check() (SuspendArgs, error) {
	switch {
	case a.Days < 1 || a.Days > MaxResolveDays:
		return a, detail.New(ErrUsage, "a suspension needs 1..%d days", MaxResolveDays)
	case !a.Reason.Valid():
		return a, detail.New(ErrUsage, "choose the reason of the suspension")
	case utf8.RuneCountInString(a.Note) > MaxNoteRunes:
		return a, detail.New(ErrUsage, "the note is longer than %d characters", MaxNoteRunes)
	}
	a.Note, _ = CleanText(a.Note, MaxNoteRunes)
	return a, nil
}

// Suspend suspends an account for args.Days from now, through its actor,
// in the account's moderation state (never shortening a running
// suspension, like a report's). It returns the new state.
func Suspend(ctx context.Context, sys *actors.System, args SuspendArgs, moderator string, now time.Time) (Moderation, error) {
	args, err := args.Check()
	if err != nil {
		return Moderation{}, err
	}
	res := Resolution{Action: rules.ActionSuspend, Days: args.Days, Note: args.Note, Moderator: moderator, Time: now}
	out, err := actors.Apply(ctx, sys, args.Account, (&suspendChange{res: res, reason: args.Reason}).apply)
	if err != nil {
		return Moderation{}, err
	}
	return out, nil
}

type suspendChange struct {
	res    Resolution
	reason reportsapi.Reason
}

func (c *suspendChange) apply(tx *actors.Tx) (Moderation, error) {
	m, err := getOr(moderationRecords, tx.DB(), tx.ID(), "")
	if err != nil {
		return Moderation{}, err
	}
	next := m.Apply(c.res, c.reason, c.res.Time)
	if err := moderationRecords.Put(tx, "", &next); err != nil {
		return Moderation{}, err
	}
	return next, nil
}

// Lifted is what Lift ended.
type Lifted struct {
	Moderation bool // a running suspension of the moderation state (a report's or an operator's)
	Direct     bool // the account's own susp_id (set directly by an older console or another tool)
	State      Moderation
}

// Lift ends every suspension of an account at now, through its actor, in
// one commit: a running suspension of its moderation state (its count and
// guilty level stay: they are history) and a susp_id set directly on the
// account. Reports resolved with a suspension keep their status.
func Lift(ctx context.Context, sys *actors.System, id storage.AccountID, now time.Time) (Lifted, error) {
	out, err := actors.Apply(ctx, sys, id, liftChange{now: now}.apply)
	if err != nil {
		return Lifted{}, err
	}
	return out, nil
}

type liftChange struct{ now time.Time }

func (c liftChange) apply(tx *actors.Tx) (Lifted, error) {
	var l Lifted
	m, err := getOr(moderationRecords, tx.DB(), tx.ID(), "")
	if err != nil {
		return Lifted{}, err
	}
	if m.Suspended(c.now) {
		m.Standing, m.Until, m.PopupPending = rules.StandingNormal, c.now, false
		if err := moderationRecords.Put(tx, "", m); err != nil {
			return Lifted{}, err
		}
		l.Moderation = true
	}
	if tx.View().SuspID != 0 {
		tx.Account().SuspID = 0
		l.Direct = true
	}
	l.State = *m
	return l, nil
}
