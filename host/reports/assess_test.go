package reports

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	rules "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
)

func TestAssessCountsOnlyTheWindow(t *testing.T) {
	old := Report{Draft: Draft{Reportee: bob}, Received: t0.Add(-Window)}       // exactly 24 h ago: outside
	recent := Report{Draft: Draft{Reportee: bob}, Received: t0.Add(-time.Hour)} // inside
	future := Report{Draft: Draft{Reportee: dave}, Received: t0.Add(time.Hour)} // clock went back: counts
	var seen []reportsapi.Facts
	spy := func(f reportsapi.Facts) (reportsapi.Decision, error) {
		seen = append(seen, f)
		return rules.Decide(f), nil
	}
	b := Batch{Reporter: alice, Now: t0, Recent: []Report{old, recent, future}, LastSeq: 41,
		OtherReporters: func(id storage.AccountID) int {
			if id == bob.ID {
				return 2
			}
			return 0
		}}
	drafts := []Draft{
		{Reportee: bob, Reason: reportsapi.ReasonAFK, Text: "héllo"},
		{Reportee: carol, Reason: reportsapi.ReasonChatAbuse},
		{Reportee: bob, Reason: reportsapi.ReasonAFK}, // third against Bob in the window: refused
	}
	outs := Assess(b, drafts, spy)
	if len(seen) != 3 {
		t.Fatalf("decider called %d times", len(seen))
	}
	want := []reportsapi.Facts{
		{Reporter: 1, Reportee: 2, Reason: reportsapi.ReasonAFK, TextLen: 5, ReporterRecentCount: 2, ReporterToReporteeCount: 1, DistinctReportersOfReportee: 2, Limits: reportsapi.DefaultLimits},
		{Reporter: 1, Reportee: 3, Reason: reportsapi.ReasonChatAbuse, ReporterRecentCount: 3, Limits: reportsapi.DefaultLimits},
		{Reporter: 1, Reportee: 2, Reason: reportsapi.ReasonAFK, ReporterRecentCount: 4, ReporterToReporteeCount: 2, DistinctReportersOfReportee: 2, Limits: reportsapi.DefaultLimits},
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Errorf("facts %d:\n%+v\nwant\n%+v", i, seen[i], want[i])
		}
	}
	if !outs[0].Accepted() || outs[0].Report.ID != (ReportID{1, 42}) || outs[0].Report.Priority != 3 {
		t.Errorf("first: %+v", outs[0])
	}
	if !outs[1].Accepted() || outs[1].Report.ID != (ReportID{1, 43}) || outs[1].Report.Priority != 1 {
		t.Errorf("second: %+v", outs[1])
	}
	var ref *RefusedError
	if !errors.As(outs[2].Err, &ref) || ref.Refusal != reportsapi.RefusalReporteeLimit || !errors.Is(outs[2].Err, ErrRefused) {
		t.Errorf("third: %v", outs[2].Err)
	}
}

func TestSameOwner(t *testing.T) {
	f := FactsFor(Batch{Reporter: alice}, nil, Draft{Reportee: aliceAlt}, reportsapi.DefaultLimits)
	if !f.SameOwner {
		t.Error("a sub-account of the reporter's main account is the same owner")
	}
	// An account without a known owner never matches another by owner 0.
	f = FactsFor(Batch{Reporter: Account{ID: 8}}, nil, Draft{Reportee: Account{ID: 9}}, reportsapi.DefaultLimits)
	if f.SameOwner {
		t.Error("owner 0 must not match")
	}
}

func TestCheckDecision(t *testing.T) {
	tests := []struct {
		d  reportsapi.Decision
		ok bool
	}{
		{reportsapi.Decision{Accept: true, Priority: 1}, true},
		{reportsapi.Decision{Accept: true, Priority: 10}, true},
		{reportsapi.Decision{Accept: true, Priority: 0}, false},
		{reportsapi.Decision{Accept: true, Priority: 11}, false},
		{reportsapi.Decision{Accept: true, Priority: 1, Refusal: reportsapi.RefusalRule}, false},
		{reportsapi.Decision{Refusal: reportsapi.RefusalDailyLimit}, true},
		{reportsapi.Decision{Refusal: reportsapi.RefusalRule}, true},
		{reportsapi.Decision{}, false},
		{reportsapi.Decision{Refusal: 77}, false},
		{reportsapi.Decision{Refusal: reportsapi.RefusalRule, Priority: 2}, false},
	}
	for _, tc := range tests {
		err := CheckDecision(tc.d, reportsapi.Limits{})
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrBadDecision)) {
			t.Errorf("CheckDecision(%+v) = %v, want ok %v", tc.d, err, tc.ok)
		}
	}
}

func TestMessage(t *testing.T) {
	for _, err := range []error{ErrDisabled, ErrBadCookie, ErrNotReporter, ErrUnknownPlayer, ErrUnknownReason,
		ErrTextTooLong, ErrBadRequest, ErrBadDecision, ErrUnavailable, &RefusedError{reportsapi.RefusalDailyLimit}, errors.New("x")} {
		m := Message(err)
		if m == "" || containsAny(m, "reports:", "wire:", "storage:") {
			t.Errorf("Message(%v) = %q", err, m)
		}
	}
	if Message(&RefusedError{reportsapi.RefusalDailyLimit}) != reportsapi.RefusalDailyLimit.Message() {
		t.Error("refusals use the refusal's message")
	}
	// A filing whose commit outlasted the wait may have been written: it
	// is never answered "could not be sent ... try again".
	for _, err := range []error{actors.ErrTimeout, fmt.Errorf("file: %w", storage.ErrCommitUncertain)} {
		if m := Message(err); m != msgOutcomeUnknown {
			t.Errorf("Message(%v) = %q, want the outcome-unknown answer", err, m)
		}
	}
	if m := Message(storage.ErrDiskFull); !strings.Contains(m, "nothing was sent") {
		t.Errorf("Message(disk full) = %q", m)
	}
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
