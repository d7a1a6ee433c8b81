package reports

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/console/consolepage"
	"github.com/honmaster/masterserver/host/failure/detail"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
)

// What the area adds to the console's account page and to the host's view
// of an account (area.Live): the suspension section, with its suspend and
// unsuspend forms (Suspend and Lift: a console suspension is a timed one
// in the account's moderation state, like a report's), whether the
// moderation state holds the account suspended (the console lists it so
// and ends its operator's sessions), and the susp_id of its next login
// (the console's preview of the session record).

var suspensionTemplate = template.Must(template.ParseFS(templates, "templates/suspension.html"))

// suspensionData is the account page's suspension section.
type suspensionData struct {
	// Standing is the moderation state (reports' and the console's timed
	// suspensions); DirectSuspID a susp_id set directly on the account.
	Standing     string
	DirectSuspID int
	Suspended    bool
	Reasons      []Option
	MaxDays      int
}

func (p *pages) accountPanel() consolepage.AccountPanel {
	return consolepage.AccountPanel{Template: suspensionTemplate, Data: p.suspensionData,
		Routes: map[string]http.Handler{"POST /console/account/suspend": http.HandlerFunc(p.suspend)}}
}

func (p *pages) suspensionData(r *http.Request, a *storage.Account) (any, error) {
	m, err := ModerationOf(p.sys.DB(), a.ID)
	if err != nil {
		return nil, err
	}
	now := consolepage.Now(r)
	text := StandingText(m, now)
	if fm, err := familyModeration(p.sys.DB(), a, m, now, nil); err != nil {
		return nil, err
	} else if !m.Suspended(now) && fm.Suspended(now) {
		// Lifted where it was given (the other account's page).
		text += "; suspended as another account of the player's is: " + fm.StandingAt(now)
	}
	return suspensionData{Standing: text, DirectSuspID: a.SuspID, Suspended: a.SuspID != 0 || m.Suspended(now),
		Reasons: ReasonOptions(), MaxDays: MaxResolveDays}, nil
}

// accountSuspended is the area's area.Live.Suspended: a timed suspension
// of the account, or of another account of its family
// (familyModeration), running at now.
func accountSuspended(db *storage.DB, a *storage.Account, now time.Time) (bool, error) {
	m, err := accountModeration(db, a, now)
	if err != nil {
		return false, err
	}
	return m.Suspended(now), nil
}

// sessionFields is the area's area.Live.SessionFields: SessionHook's
// susp_id for a login at now.
func sessionFields(db *storage.DB, a *storage.Account, now time.Time) (login.RecordFields, error) {
	m, err := accountModeration(db, a, now)
	if err != nil {
		return login.RecordFields{}, err
	}
	return m.LoginFields(a.Standing, now), nil
}

// accountModeration is the moderation state that holds for account a at
// now (familyModeration).
func accountModeration(db *storage.DB, a *storage.Account, now time.Time) (Moderation, error) {
	m, err := ModerationOf(db, a.ID)
	if err != nil {
		return Moderation{}, err
	}
	return familyModeration(db, a, m, now, nil)
}

// suspend suspends an account (suspend=1: days, reason, note) with
// Suspend, or lifts every suspension it has (suspend=0) with Lift, and
// goes back to the account's page.
func (p *pages) suspend(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	loginName := r.PostFormValue("login")
	to := "/console/account?login=" + url.QueryEscape(loginName)
	back := func(notice string, err error) { consolepage.Back(w, r, to, notice, suspendFormError(err)) }
	id, err := p.sys.DB().LoginID(loginName)
	if err != nil {
		back("", err)
		return
	}
	now := consolepage.Now(r)
	if r.PostFormValue("suspend") != "1" {
		l, err := Lift(ctx, p.sys, id, now)
		msg := "account was not suspended"
		if l.Moderation || l.Direct {
			msg = "suspension lifted"
		}
		back(msg, err)
		return
	}
	days, err := strconv.Atoi(strings.TrimSpace(r.PostFormValue("days")))
	if err != nil {
		back("", fmt.Errorf("days must be a whole number, 1..%d", MaxResolveDays))
		return
	}
	reason, _ := reportsapi.ParseReason(r.PostFormValue("reason"))
	m, err := Suspend(ctx, p.sys, SuspendArgs{Account: id, Reason: reason, Days: days, Note: r.PostFormValue("note")},
		consolepage.Operator(r), now)
	if err != nil {
		back("", err)
		return
	}
	back("account suspended until "+m.Until.UTC().Format(TimeLayout), nil)
}

// suspendFormError words a failure of the suspension forms for the operator:
// Suspend's checks without flag names, an unknown account as such.
func suspendFormError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, storage.ErrNotFound), errors.Is(err, actors.ErrNoAccount):
		return errors.New("no such account")
	case errors.Is(err, ErrUsage):
		msg, _ := detail.Of(err, ErrUsage)
		return errors.New(msg)
	}
	return err
}
