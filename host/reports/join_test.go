package reports

import (
	"testing"

	rules "github.com/honmaster/masterserver/plugins/reports"
)

func TestJoin(t *testing.T) {
	rs := []Report{{ID: ReportID{1, 1}}, {ID: ReportID{2, 1}, Resolution: &Resolution{Action: rules.ActionWarn}}}
	out := Join(rs, map[ReportID]Resolution{{1, 1}: {Report: ReportID{1, 1}, Action: rules.ActionSuspend, Days: 2}})
	if out[0].Status() != rules.StatusSuspended || out[0].Resolution.Days != 2 {
		t.Errorf("first: %+v", out[0])
	}
	if out[1].Status() != rules.StatusOpen {
		t.Errorf("second must be open (no resolution in the map): %+v", out[1])
	}
	if rs[0].Resolution != nil {
		t.Error("Join must not change its input")
	}
}

func TestOtherReporters(t *testing.T) {
	entries := []IndexEntry{
		{Report: ReportID{1, 1}, Reportee: 2}, {Report: ReportID{1, 2}, Reportee: 2}, // reporter 1 twice
		{Report: ReportID{3, 1}, Reportee: 2},
		{Report: ReportID{5, 1}, Reportee: 2}, // resolved: not counted
		{Report: ReportID{7, 1}, Reportee: 2}, // self
	}
	resolved := func(id ReportID) bool { return id == ReportID{5, 1} }
	if n := OtherReporters(entries, resolved, 7); n != 2 {
		t.Errorf("= %d, want 2", n)
	}
	if n := OtherReporters(entries, nil, 0); n != 4 {
		t.Errorf("without resolutions = %d, want 4", n)
	}
}
