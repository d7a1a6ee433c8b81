package reports

import (
	"errors"
	"testing"
	"time"

	rules "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
)

func TestReportID(t *testing.T) {
	id := ReportID{Reporter: 123, Seq: 7}
	if id.String() != "123-7" {
		t.Fatalf("String = %q", id.String())
	}
	back, err := ParseReportID("123-7")
	if err != nil || back != id {
		t.Fatalf("ParseReportID = %v, %v", back, err)
	}
	if !(ReportID{}).IsZero() || id.IsZero() {
		t.Error("IsZero wrong")
	}
	for _, bad := range []string{"", "123", "123-", "-7", "123-0", "a-1", "1-b", "+1-2", "1-+2", "1-2-3", "4294967296-1", "1-4294967296", " 1-2"} {
		if _, err := ParseReportID(bad); !errors.Is(err, ErrBadReportID) {
			t.Errorf("ParseReportID(%q) = %v, want ErrBadReportID", bad, err)
		}
	}
}

func TestSourceCodeSet(t *testing.T) {
	if SourceMaster.CodeSet() != reportsapi.CodesMaster || SourceReport2.CodeSet() != reportsapi.CodesReport2 {
		t.Error("code sets")
	}
	if SourceMaster.String() != PathReport || SourceReport2.String() != PathReport2 {
		t.Error("names")
	}
}

func TestReportStatus(t *testing.T) {
	r := Report{}
	if r.Status() != rules.StatusOpen {
		t.Fatal("unresolved report must be open")
	}
	for a, want := range map[rules.Action]rules.Status{rules.ActionDismiss: rules.StatusDismissed,
		rules.ActionWarn: rules.StatusWarned, rules.ActionSuspend: rules.StatusSuspended} {
		r.Resolution = &Resolution{Action: a}
		if got := r.Status(); got != want {
			t.Errorf("%v: status %v, want %v", a, got, want)
		}
	}
}

func TestModeration(t *testing.T) {
	day := 24 * time.Hour
	res := func(a rules.Action, days int) Resolution {
		return Resolution{Report: ReportID{9, 1}, Action: a, Days: days, Note: "n"}
	}
	var m Moderation
	if m.Effective(t0) != rules.StandingNormal || m.Suspended(t0) {
		t.Fatal("zero state must be normal")
	}

	// Dismissal changes nothing.
	if got := m.Apply(res(rules.ActionDismiss, 0), reportsapi.ReasonAFK, t0); got != m {
		t.Fatalf("dismiss changed state: %+v", got)
	}

	// A warning lasts DefaultWarningDays when given no days.
	w := m.Apply(res(rules.ActionWarn, 0), reportsapi.ReasonAFK, t0)
	if w.Effective(t0) != rules.StandingWarning || !w.Until.Equal(t0.Add(DefaultWarningDays*day)) || !w.PopupPending || w.GuiltyLevel != 1 {
		t.Fatalf("warning: %+v", w)
	}
	if w.Effective(t0.Add(DefaultWarningDays*day)) != rules.StandingNormal {
		t.Error("warning must end by itself")
	}

	// A suspension ends by itself at its end.
	s := w.Apply(res(rules.ActionSuspend, 3), reportsapi.ReasonFeeding, t0.Add(time.Hour))
	end := t0.Add(time.Hour + 3*day)
	if !s.Suspended(end.Add(-time.Nanosecond)) || s.Suspended(end) || s.GuiltyLevel != 2 || s.Suspensions != 1 || s.Reason != reportsapi.ReasonFeeding {
		t.Fatalf("suspension: %+v", s)
	}

	// A warning during a suspension does not lift it.
	sw := s.Apply(res(rules.ActionWarn, 1), reportsapi.ReasonAFK, t0.Add(2*time.Hour))
	if !sw.Suspended(t0.Add(2*day)) || sw.GuiltyLevel != 3 || sw.Reason != reportsapi.ReasonFeeding {
		t.Fatalf("warning over suspension: %+v", sw)
	}

	// A shorter second suspension keeps the later end; a longer one extends.
	short := s.Apply(res(rules.ActionSuspend, 1), reportsapi.ReasonAFK, t0.Add(2*time.Hour))
	if !short.Until.Equal(end) || short.Suspensions != 2 {
		t.Fatalf("shorter suspension: until %v, want %v", short.Until, end)
	}
	long := s.Apply(res(rules.ActionSuspend, 10), reportsapi.ReasonAFK, t0.Add(2*time.Hour))
	if !long.Until.Equal(t0.Add(2*time.Hour + 10*day)) {
		t.Fatalf("longer suspension: until %v", long.Until)
	}

	// Popup once.
	if s.Shown().PopupPending || !s.PopupPending {
		t.Error("Shown must clear the popup")
	}
}

func TestViewAndSessionFields(t *testing.T) {
	var m Moderation
	if v := m.View(t0); v != (StatusView{}) {
		t.Fatalf("normal view: %+v", v)
	}
	if id, st := m.SessionFields(3, t0); id != "0" || st != "3" {
		t.Fatalf("normal session: %q %q", id, st)
	}
	m = m.Apply(Resolution{Action: rules.ActionSuspend, Days: 2}, reportsapi.ReasonImpersonation, t0)
	v := m.View(t0.Add(time.Hour))
	want := StatusView{ForcePopup: true, Standing: rules.StandingSuspended, Reason: "Impersonating Staff", GuiltyLevel: 1, EndDate: "2026-11-25 12:00:00"}
	if v != want {
		t.Fatalf("view %+v, want %+v", v, want)
	}
	if id, st := m.SessionFields(3, t0); id != "1" || st != "3" {
		t.Fatalf("suspended session: %q %q", id, st)
	}
	after := t0.Add(48 * time.Hour)
	if v := m.View(after); v != (StatusView{GuiltyLevel: 1}) {
		t.Fatalf("after the end: %+v", v)
	}
	if id, _ := m.SessionFields(3, after); id != "0" {
		t.Fatalf("after the end susp_id %q", id)
	}
	// End dates are UTC whatever the zone of the time given.
	local := Moderation{Standing: rules.StandingWarning, Reason: reportsapi.ReasonAFK, Until: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600))}
	if v := local.View(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); v.EndDate != "2026-01-02 02:04:05" {
		t.Errorf("end date %q", v.EndDate)
	}
}

// A second, shorter verdict cut a running warning short: a 7-day warning
// given on day 1 of a 30-day one ended it on day 8, and a 1-day
// suspension given during a 30-day warning ended the warning with it.
// (From a review of the area; each case failed before.)
func TestAShorterVerdictNeverEndsAWarningEarly(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	warn := func(days int) Resolution { return Resolution{Action: rules.ActionWarn, Days: days} }
	suspend := func(days int) Resolution { return Resolution{Action: rules.ActionSuspend, Days: days} }
	type at struct {
		day  int
		want rules.Standing
		ends int // the standing's end, in days after t0 (0: none)
	}
	for _, tc := range []struct {
		name   string
		steps  []Resolution
		stepAt []int // the day of each step
		checks []at
	}{
		{"a shorter warning during a warning", []Resolution{warn(30), warn(7)}, []int{0, 1},
			[]at{{2, rules.StandingWarning, 30}, {29, rules.StandingWarning, 30}, {30, rules.StandingNormal, 0}}},
		{"a longer warning during a warning", []Resolution{warn(3), warn(7)}, []int{0, 1},
			[]at{{5, rules.StandingWarning, 8}, {8, rules.StandingNormal, 0}}},
		{"a short suspension during a long warning", []Resolution{warn(30), suspend(1)}, []int{0, 0},
			[]at{{0, rules.StandingSuspended, 1}, {3, rules.StandingWarning, 30}, {30, rules.StandingNormal, 0}}},
		{"a long suspension during a short warning", []Resolution{warn(3), suspend(10)}, []int{0, 1},
			[]at{{5, rules.StandingSuspended, 11}, {11, rules.StandingNormal, 0}}},
		{"a warning during a suspension", []Resolution{suspend(2), warn(10)}, []int{0, 1},
			[]at{{1, rules.StandingSuspended, 2}, {2, rules.StandingWarning, 11}, {11, rules.StandingNormal, 0}}},
		{"a warning after the last ended", []Resolution{warn(2), warn(2)}, []int{0, 5},
			[]at{{6, rules.StandingWarning, 7}, {7, rules.StandingNormal, 0}}},
	} {
		var m Moderation
		for i, res := range tc.steps {
			m = m.Apply(res, reportsapi.ReasonChatAbuse, t0.Add(time.Duration(tc.stepAt[i])*day))
		}
		for _, c := range tc.checks {
			now := t0.Add(time.Duration(c.day) * day)
			wantEnd := time.Time{}
			if c.ends != 0 {
				wantEnd = t0.Add(time.Duration(c.ends) * day)
			}
			if got, end := m.Effective(now), m.Ends(now); got != c.want || !end.Equal(wantEnd) {
				t.Errorf("%s, day %d: %v until %v, want %v until %v", tc.name, c.day, got, end, c.want, wantEnd)
			}
		}
	}
}
