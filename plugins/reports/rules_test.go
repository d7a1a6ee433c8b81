package reports_test

import (
	"testing"
	"time"

	"github.com/honmaster/masterserver/plugins/reports"
)

func TestReasonCodesPerPath(t *testing.T) {
	tests := []struct {
		cs   reports.CodeSet
		code int
		want reports.Reason
	}{
		{reports.CodesReport2, 1, reports.ReasonChatAbuse},
		{reports.CodesReport2, 4, reports.ReasonAbilityAbuse},
		{reports.CodesReport2, 5, reports.ReasonBadNickname},
		{reports.CodesReport2, 6, reports.ReasonAFK},
		{reports.CodesMaster, 1, reports.ReasonChatAbuse},
		{reports.CodesMaster, 3, reports.ReasonImpersonation},
		{reports.CodesMaster, 5, reports.ReasonAFK},
		{reports.CodesMaster, 6, reports.ReasonBadNickname},
	}
	for _, tc := range tests {
		got, ok := reports.ReasonFromCode(tc.cs, tc.code)
		if !ok || got != tc.want {
			t.Errorf("ReasonFromCode(%d, %d) = %v, %v; want %v", tc.cs, tc.code, got, ok, tc.want)
		}
		if back := tc.want.Code(tc.cs); back != tc.code {
			t.Errorf("%v.Code(%d) = %d, want %d", tc.want, tc.cs, back, tc.code)
		}
	}
	for _, cs := range []reports.CodeSet{reports.CodesReport2, reports.CodesMaster} {
		for _, code := range []int{0, 7, -1, 255} {
			if r, ok := reports.ReasonFromCode(cs, code); ok {
				t.Errorf("ReasonFromCode(%d, %d) = %v, want unknown", cs, code, r)
			}
		}
		// Each code set is a bijection over the table.
		seen := map[int]bool{}
		for _, r := range reports.Reasons() {
			c := r.Code(cs)
			if c < 1 || c > 6 || seen[c] {
				t.Errorf("code set %d: %v has code %d (seen %v)", cs, r, c, seen[c])
			}
			seen[c] = true
		}
	}
	if reports.Reason(9).Code(reports.CodesMaster) != 0 || reports.ReasonAFK.Code(reports.CodeSet(9)) != 0 {
		t.Error("unknown reason or code set must have code 0")
	}
}

func TestVocabularyNames(t *testing.T) {
	for _, r := range reports.Reasons() {
		if !r.Valid() || r.Title() == "" {
			t.Errorf("%v: invalid or untitled", r)
		}
		if back, ok := reports.ParseReason(r.String()); !ok || back != r {
			t.Errorf("ParseReason(%q) = %v, %v", r.String(), back, ok)
		}
	}
	if reports.Reason(0).Valid() || reports.Reason(7).Valid() || reports.Reason(7).String() != "reason(7)" {
		t.Error("reasons 0 and 7 must be unknown")
	}
	for _, s := range reports.Statuses() {
		if back, ok := reports.ParseStatus(s.String()); !ok || back != s || !s.Valid() {
			t.Errorf("ParseStatus(%q) = %v, %v", s.String(), back, ok)
		}
	}
	if reports.Status(0).Valid() || reports.Status(9).Valid() {
		t.Error("statuses 0 and 9 must be unknown")
	}
	for name, want := range map[string]reports.Status{"dismiss": reports.StatusDismissed, "warn": reports.StatusWarned, "SUSPEND": reports.StatusSuspended} {
		a, ok := reports.ParseAction(name)
		if !ok || !a.Valid() {
			t.Fatalf("ParseAction(%q) = %v, %v", name, a, ok)
		}
		if s, ok := reports.StatusOf(a); !ok || s != want {
			t.Errorf("StatusOf(%v) = %v, %v; want %v", a, s, ok, want)
		}
	}
	if _, ok := reports.ParseAction("ban"); ok {
		t.Error(`ParseAction("ban") must fail`)
	}
	if _, ok := reports.StatusOf(0); ok {
		t.Error("action 0 must have no status")
	}
	for i, want := range []string{"normal", "warning", "suspended", "observed", "observed_warning"} {
		if got := reports.Standing(i).String(); got != want {
			t.Errorf("Standing(%d) = %q, want %q", i, got, want)
		}
	}
	if reports.Standing(5).Valid() {
		t.Error("standing 5 must be invalid")
	}
	for _, r := range []reports.Refusal{reports.RefusalUnknownReason, reports.RefusalDailyLimit, reports.RefusalRule} {
		if !r.Valid() || r.Message() == "" {
			t.Errorf("%v: invalid or without message", r)
		}
	}
	if reports.Refusal(99).Valid() || reports.Refusal(99).Message() == "" {
		t.Error("unknown refusal must be invalid but still have a message")
	}
}

const week = 7 * 24 * time.Hour

func TestDecide(t *testing.T) {
	ok := reports.Facts{Reporter: 1, Reportee: 2, Reason: reports.ReasonChatAbuse, TextLen: 10}
	with := func(f func(*reports.Facts)) reports.Facts { c := ok; f(&c); return c }
	tests := []struct {
		name  string
		facts reports.Facts
		want  reports.Decision
	}{
		{"accepted", ok, reports.Decision{Accept: true, Priority: 1}},
		{"unknown reason", with(func(f *reports.Facts) { f.Reason = 0 }), reports.Decision{Refusal: reports.RefusalUnknownReason}},
		{"reason 7", with(func(f *reports.Facts) { f.Reason = 7 }), reports.Decision{Refusal: reports.RefusalUnknownReason}},
		{"text at limit", with(func(f *reports.Facts) { f.TextLen = 210 }), reports.Decision{Accept: true, Priority: 1}},
		{"text over limit", with(func(f *reports.Facts) { f.TextLen = 211 }), reports.Decision{Refusal: reports.RefusalTextTooLong}},
		{"custom text limit", with(func(f *reports.Facts) { f.TextLen = 50; f.Limits.MaxTextRunes = 40 }), reports.Decision{Refusal: reports.RefusalTextTooLong}},
		{"self", with(func(f *reports.Facts) { f.Reportee = 1 }), reports.Decision{Refusal: reports.RefusalSelfReport}},
		{"own sub-account", with(func(f *reports.Facts) { f.SameOwner = true }), reports.Decision{Refusal: reports.RefusalSelfReport}},
		{"below daily limit", with(func(f *reports.Facts) { f.ReporterRecentCount = 19 }), reports.Decision{Accept: true, Priority: 1}},
		{"daily limit", with(func(f *reports.Facts) { f.ReporterRecentCount = 20 }), reports.Decision{Refusal: reports.RefusalDailyLimit}},
		{"custom daily limit", with(func(f *reports.Facts) { f.ReporterRecentCount = 3; f.Limits.PerDay = 3 }), reports.Decision{Refusal: reports.RefusalDailyLimit}},
		{"below reportee limit", with(func(f *reports.Facts) { f.ReporterToReporteeCount = 1 }), reports.Decision{Accept: true, Priority: 1}},
		{"reportee limit", with(func(f *reports.Facts) { f.ReporterToReporteeCount = 2 }), reports.Decision{Refusal: reports.RefusalReporteeLimit}},
		{"daily limit checked first", with(func(f *reports.Facts) { f.ReporterRecentCount = 20; f.ReporterToReporteeCount = 5 }), reports.Decision{Refusal: reports.RefusalDailyLimit}},
		{"three other reporters", with(func(f *reports.Facts) { f.DistinctReportersOfReportee = 3 }), reports.Decision{Accept: true, Priority: 4}},
		{"priority capped", with(func(f *reports.Facts) { f.DistinctReportersOfReportee = 50 }), reports.Decision{Accept: true, Priority: 10}},
		{"custom cap", with(func(f *reports.Facts) { f.DistinctReportersOfReportee = 50; f.Limits.MaxPriority = 3 }), reports.Decision{Accept: true, Priority: 3}},
		{"negative count is zero", with(func(f *reports.Facts) { f.DistinctReportersOfReportee = -4 }), reports.Decision{Accept: true, Priority: 1}},
		// Accounts younger than NewAccountAge weigh least (issue 22, item 6).
		{"new account", with(func(f *reports.Facts) {
			f.DistinctReportersOfReportee = 5
			f.ReporterAge = 2 * time.Hour
			f.Limits.NewAccountAge = week
		}), reports.Decision{Accept: true, Priority: 1}},
		{"account of age", with(func(f *reports.Facts) {
			f.DistinctReportersOfReportee = 5
			f.ReporterAge = week
			f.Limits.NewAccountAge = week
		}), reports.Decision{Accept: true, Priority: 6}},
		{"age unknown", with(func(f *reports.Facts) { f.DistinctReportersOfReportee = 5; f.Limits.NewAccountAge = week }), reports.Decision{Accept: true, Priority: 6}},
		{"no new-account age", with(func(f *reports.Facts) { f.DistinctReportersOfReportee = 5; f.ReporterAge = time.Second }), reports.Decision{Accept: true, Priority: 6}},
		{"new other reporters do not count", with(func(f *reports.Facts) { f.DistinctReportersOfReportee = 5; f.NewReportersOfReportee = 3 }), reports.Decision{Accept: true, Priority: 3}},
		{"new account over the daily limit", with(func(f *reports.Facts) {
			f.ReporterRecentCount = 20
			f.ReporterAge = time.Hour
			f.Limits.NewAccountAge = week
		}), reports.Decision{Refusal: reports.RefusalDailyLimit}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := reports.Decide(tc.facts); got != tc.want {
				t.Errorf("Decide = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestLimitsWithDefaults(t *testing.T) {
	if got := (reports.Limits{}).WithDefaults(); got != reports.DefaultLimits {
		t.Errorf("zero limits = %+v, want defaults", got)
	}
	custom := reports.Limits{PerDay: 5, PerReportee: 1, MaxTextRunes: 100, MaxPriority: 4}
	if got := custom.WithDefaults(); got != custom {
		t.Errorf("custom limits changed: %+v", got)
	}
	if got := (reports.Limits{PerDay: -1}).WithDefaults(); got.PerDay != reports.DefaultLimits.PerDay {
		t.Errorf("negative PerDay kept: %+v", got)
	}
}
