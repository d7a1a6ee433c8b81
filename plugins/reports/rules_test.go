package reports_test

import (
	"testing"
	"time"

	"github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
)

func TestReasonCodesPerPath(t *testing.T) {
	tests := []struct {
		cs   reportsapi.CodeSet
		code int
		want reportsapi.Reason
	}{
		{reportsapi.CodesReport2, 1, reportsapi.ReasonChatAbuse},
		{reportsapi.CodesReport2, 4, reportsapi.ReasonAbilityAbuse},
		{reportsapi.CodesReport2, 5, reportsapi.ReasonBadNickname},
		{reportsapi.CodesReport2, 6, reportsapi.ReasonAFK},
		{reportsapi.CodesMaster, 1, reportsapi.ReasonChatAbuse},
		{reportsapi.CodesMaster, 3, reportsapi.ReasonImpersonation},
		{reportsapi.CodesMaster, 5, reportsapi.ReasonAFK},
		{reportsapi.CodesMaster, 6, reportsapi.ReasonBadNickname},
	}
	for _, tc := range tests {
		got, ok := reportsapi.ReasonFromCode(tc.cs, tc.code)
		if !ok || got != tc.want {
			t.Errorf("ReasonFromCode(%d, %d) = %v, %v; want %v", tc.cs, tc.code, got, ok, tc.want)
		}
		if back := tc.want.Code(tc.cs); back != tc.code {
			t.Errorf("%v.Code(%d) = %d, want %d", tc.want, tc.cs, back, tc.code)
		}
	}
	for _, cs := range []reportsapi.CodeSet{reportsapi.CodesReport2, reportsapi.CodesMaster} {
		for _, code := range []int{0, 7, -1, 255} {
			if r, ok := reportsapi.ReasonFromCode(cs, code); ok {
				t.Errorf("ReasonFromCode(%d, %d) = %v, want unknown", cs, code, r)
			}
		}
		// Each code set is a bijection over the table.
		seen := map[int]bool{}
		for _, r := range reportsapi.Reasons() {
			c := r.Code(cs)
			if c < 1 || c > 6 || seen[c] {
				t.Errorf("code set %d: %v has code %d (seen %v)", cs, r, c, seen[c])
			}
			seen[c] = true
		}
	}
	if reportsapi.Reason(9).Code(reportsapi.CodesMaster) != 0 || reportsapi.ReasonAFK.Code(reportsapi.CodeSet(9)) != 0 {
		t.Error("unknown reason or code set must have code 0")
	}
}

func TestVocabularyNames(t *testing.T) {
	for _, r := range reportsapi.Reasons() {
		if !r.Valid() || r.Title() == "" {
			t.Errorf("%v: invalid or untitled", r)
		}
		if back, ok := reportsapi.ParseReason(r.String()); !ok || back != r {
			t.Errorf("ParseReason(%q) = %v, %v", r.String(), back, ok)
		}
	}
	if reportsapi.Reason(0).Valid() || reportsapi.Reason(7).Valid() || reportsapi.Reason(7).String() != "reason(7)" {
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
	for _, r := range []reportsapi.Refusal{reportsapi.RefusalUnknownReason, reportsapi.RefusalDailyLimit, reportsapi.RefusalRule} {
		if !r.Valid() || r.Message() == "" {
			t.Errorf("%v: invalid or without message", r)
		}
	}
	if reportsapi.Refusal(99).Valid() || reportsapi.Refusal(99).Message() == "" {
		t.Error("unknown refusal must be invalid but still have a message")
	}
}

const week = 7 * 24 * time.Hour

func TestDecide(t *testing.T) {
	ok := reportsapi.Facts{Reporter: 1, Reportee: 2, Reason: reportsapi.ReasonChatAbuse, TextLen: 10}
	with := func(f func(*reportsapi.Facts)) reportsapi.Facts { c := ok; f(&c); return c }
	tests := []struct {
		name  string
		facts reportsapi.Facts
		want  reportsapi.Decision
	}{
		{"accepted", ok, reportsapi.Decision{Accept: true, Priority: 1}},
		{"unknown reason", with(func(f *reportsapi.Facts) { f.Reason = 0 }), reportsapi.Decision{Refusal: reportsapi.RefusalUnknownReason}},
		{"reason 7", with(func(f *reportsapi.Facts) { f.Reason = 7 }), reportsapi.Decision{Refusal: reportsapi.RefusalUnknownReason}},
		{"text at limit", with(func(f *reportsapi.Facts) { f.TextLen = 210 }), reportsapi.Decision{Accept: true, Priority: 1}},
		{"text over limit", with(func(f *reportsapi.Facts) { f.TextLen = 211 }), reportsapi.Decision{Refusal: reportsapi.RefusalTextTooLong}},
		{"custom text limit", with(func(f *reportsapi.Facts) { f.TextLen = 50; f.Limits.MaxTextRunes = 40 }), reportsapi.Decision{Refusal: reportsapi.RefusalTextTooLong}},
		{"self", with(func(f *reportsapi.Facts) { f.Reportee = 1 }), reportsapi.Decision{Refusal: reportsapi.RefusalSelfReport}},
		{"own sub-account", with(func(f *reportsapi.Facts) { f.SameOwner = true }), reportsapi.Decision{Refusal: reportsapi.RefusalSelfReport}},
		{"below daily limit", with(func(f *reportsapi.Facts) { f.ReporterRecentCount = 19 }), reportsapi.Decision{Accept: true, Priority: 1}},
		{"daily limit", with(func(f *reportsapi.Facts) { f.ReporterRecentCount = 20 }), reportsapi.Decision{Refusal: reportsapi.RefusalDailyLimit}},
		{"custom daily limit", with(func(f *reportsapi.Facts) { f.ReporterRecentCount = 3; f.Limits.PerDay = 3 }), reportsapi.Decision{Refusal: reportsapi.RefusalDailyLimit}},
		{"below reportee limit", with(func(f *reportsapi.Facts) { f.ReporterToReporteeCount = 1 }), reportsapi.Decision{Accept: true, Priority: 1}},
		{"reportee limit", with(func(f *reportsapi.Facts) { f.ReporterToReporteeCount = 2 }), reportsapi.Decision{Refusal: reportsapi.RefusalReporteeLimit}},
		{"daily limit checked first", with(func(f *reportsapi.Facts) { f.ReporterRecentCount = 20; f.ReporterToReporteeCount = 5 }), reportsapi.Decision{Refusal: reportsapi.RefusalDailyLimit}},
		{"three other reporters", with(func(f *reportsapi.Facts) { f.DistinctReportersOfReportee = 3 }), reportsapi.Decision{Accept: true, Priority: 4}},
		{"priority capped", with(func(f *reportsapi.Facts) { f.DistinctReportersOfReportee = 50 }), reportsapi.Decision{Accept: true, Priority: 10}},
		{"custom cap", with(func(f *reportsapi.Facts) { f.DistinctReportersOfReportee = 50; f.Limits.MaxPriority = 3 }), reportsapi.Decision{Accept: true, Priority: 3}},
		{"negative count is zero", with(func(f *reportsapi.Facts) { f.DistinctReportersOfReportee = -4 }), reportsapi.Decision{Accept: true, Priority: 1}},
		// Accounts younger than NewAccountAge weigh least (issue 22, item 6).
		{"new account", with(func(f *reportsapi.Facts) {
			f.DistinctReportersOfReportee = 5
			f.ReporterAge = 2 * time.Hour
			f.Limits.NewAccountAge = week
		}), reportsapi.Decision{Accept: true, Priority: 1}},
		{"account of age", with(func(f *reportsapi.Facts) {
			f.DistinctReportersOfReportee = 5
			f.ReporterAge = week
			f.Limits.NewAccountAge = week
		}), reportsapi.Decision{Accept: true, Priority: 6}},
		{"age unknown", with(func(f *reportsapi.Facts) { f.DistinctReportersOfReportee = 5; f.Limits.NewAccountAge = week }), reportsapi.Decision{Accept: true, Priority: 6}},
		{"no new-account age", with(func(f *reportsapi.Facts) { f.DistinctReportersOfReportee = 5; f.ReporterAge = time.Second }), reportsapi.Decision{Accept: true, Priority: 6}},
		{"new other reporters do not count", with(func(f *reportsapi.Facts) { f.DistinctReportersOfReportee = 5; f.NewReportersOfReportee = 3 }), reportsapi.Decision{Accept: true, Priority: 3}},
		{"new account over the daily limit", with(func(f *reportsapi.Facts) {
			f.ReporterRecentCount = 20
			f.ReporterAge = time.Hour
			f.Limits.NewAccountAge = week
		}), reportsapi.Decision{Refusal: reportsapi.RefusalDailyLimit}},
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
	if got := (reportsapi.Limits{}).WithDefaults(); got != reportsapi.DefaultLimits {
		t.Errorf("zero limits = %+v, want defaults", got)
	}
	custom := reportsapi.Limits{PerDay: 5, PerReportee: 1, MaxTextRunes: 100, MaxPriority: 4}
	if got := custom.WithDefaults(); got != custom {
		t.Errorf("custom limits changed: %+v", got)
	}
	if got := (reportsapi.Limits{PerDay: -1}).WithDefaults(); got.PerDay != reportsapi.DefaultLimits.PerDay {
		t.Errorf("negative PerDay kept: %+v", got)
	}
}
