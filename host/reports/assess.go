package reports

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	rules "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
)

// Window is the span of the per-reporter limits: a rolling 24 hours ending
// now, so a limit is the same at any hour and in any time zone, and a
// reporter never gets a fresh allowance at midnight.
const Window = 24 * time.Hour

// Decider is the plugin as the reporter's actor sees it: facts in, one
// decision out. The bundled one is rules.Decide.
type Decider func(reportsapi.Facts) (reportsapi.Decision, error)

// Bundled is the bundled plugin's rule as a Decider.
func Bundled(f reportsapi.Facts) (reportsapi.Decision, error) { return rules.Decide(f), nil }

// Outcome is what became of one draft: the stored report (ID set) when
// accepted, or the error that refused it (ErrRefused with the plugin's
// refusal, ErrBadDecision, ErrUnavailable).
type Outcome struct {
	Report Report
	Err    error
}

// Accepted reports whether the draft was accepted.
func (o Outcome) Accepted() bool { return o.Err == nil }

// Batch is everything the reporter's actor knows when it judges the
// drafts of one request. All of it is read from storage (the reporter's own
// records and the reportee index), so the limits are exact across restarts
// and need no lock: only the reporter's actor files the reporter's reports.
type Batch struct {
	Reporter Account
	// ReporterCreated is when the reporter's account was created (zero:
	// unknown); the plugin weighs a new account's report less.
	ReporterCreated time.Time
	SysInfo         string    // the reporter's latest SysInfo
	Now             time.Time // time received
	// Recent are the reporter's reports received within Window before Now
	// (older ones are ignored if present; later ones count).
	Recent []Report
	// LastSeq is the reporter's highest report sequence number so far.
	LastSeq uint32
	// OtherReporters returns how many distinct accounts other than the
	// reporter have open reports against reportee.
	OtherReporters func(reportee storage.AccountID) int
	// NewOtherReporters returns how many of those have an account younger
	// than Limits.NewAccountAge; nil: none.
	NewOtherReporters func(reportee storage.AccountID) int
	Limits            reportsapi.Limits
}

// Assess judges drafts in order: for each it computes the facts, asks
// decide, checks the decision against the tables (CheckDecision), and
// numbers the accepted ones LastSeq+1, LastSeq+2, ... An accepted draft
// counts in the facts of the drafts after it, so one request cannot get
// around the limits. A decider error refuses that draft only (as
// ErrUnavailable). The caller stores the accepted reports in one commit.
func Assess(b Batch, drafts []Draft, decide Decider) []Outcome {
	lim := b.Limits.WithDefaults()
	since := b.Now.Add(-Window)
	recent := make([]Report, 0, len(b.Recent)+len(drafts))
	for _, r := range b.Recent {
		// A report dated after now (the clock went back) still counts: it
		// was certainly filed within the window.
		if r.Received.After(since) {
			recent = append(recent, r)
		}
	}
	seq := b.LastSeq
	out := make([]Outcome, len(drafts))
	for i, d := range drafts {
		f := FactsFor(b, recent, d, lim)
		dec, err := decide(f)
		if errors.Is(err, ErrBadDecision) {
			out[i].Err = err
			continue
		}
		if err != nil {
			out[i].Err = fmt.Errorf("%w: %w", ErrUnavailable, err)
			continue
		}
		if err := CheckDecision(dec, lim); err != nil {
			out[i].Err = err
			continue
		}
		if !dec.Accept {
			out[i].Err = &RefusedError{Refusal: dec.Refusal}
			continue
		}
		seq++
		r := Report{ID: ReportID{Reporter: b.Reporter.ID, Seq: seq}, Reporter: b.Reporter, Draft: d,
			Received: b.Now, SysInfo: b.SysInfo, Priority: dec.Priority}
		recent = append(recent, r)
		out[i].Report = r
	}
	return out
}

// FactsFor computes the plugin's facts for draft d given the reporter's
// reports in the window.
func FactsFor(b Batch, recent []Report, d Draft, lim reportsapi.Limits) reportsapi.Facts {
	f := reportsapi.Facts{
		Reporter:            uint32(b.Reporter.ID),
		Reportee:            uint32(d.Reportee.ID),
		SameOwner:           b.Reporter.Owner != 0 && b.Reporter.Owner == d.Reportee.Owner,
		Reason:              d.Reason,
		TextLen:             utf8.RuneCountInString(d.Text),
		Match:               d.Match,
		ReporterRecentCount: len(recent),
		Limits:              lim,
	}
	if !b.ReporterCreated.IsZero() {
		// Whole seconds, rounded up: what the contract carries, so that
		// a plugin in or out of process sees the same age; a known age is
		// at least one second (0 is unknown).
		f.ReporterAge = max(b.Now.Sub(b.ReporterCreated), 0)
		if r := f.ReporterAge % time.Second; r != 0 || f.ReporterAge == 0 {
			f.ReporterAge += time.Second - r
		}
	}
	for _, r := range recent {
		if r.Reportee.ID == d.Reportee.ID {
			f.ReporterToReporteeCount++
		}
	}
	if b.OtherReporters != nil {
		f.DistinctReportersOfReportee = b.OtherReporters(d.Reportee.ID)
	}
	if b.NewOtherReporters != nil {
		f.NewReportersOfReportee = b.NewOtherReporters(d.Reportee.ID)
	}
	return f
}

// CheckDecision checks a plugin's decision against the tables: an
// accepted report has no refusal and a priority in 1..MaxPriority; a
// refused one names a known refusal and has no priority. Errors match
// ErrBadDecision; the host never repairs a decision.
func CheckDecision(d reportsapi.Decision, lim reportsapi.Limits) error {
	if err := d.Validate(lim); err != nil {
		return fmt.Errorf("%w: %w", ErrBadDecision, err)
	}
	return nil
}
