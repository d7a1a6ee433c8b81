package reports

import (
	"errors"
	"strings"
	"testing"
	"time"

	rules "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
)

func TestParseListArgs(t *testing.T) {
	tests := []struct {
		args []string
		want ListFilter
		ok   bool
	}{
		{nil, ListFilter{Status: rules.StatusOpen}, true},
		{[]string{"--status", "suspended"}, ListFilter{Status: rules.StatusSuspended}, true},
		{[]string{"--status", "any", "--reportee", " Bob "}, ListFilter{Reportee: "Bob"}, true},
		{[]string{"--status=Dismissed"}, ListFilter{Status: rules.StatusDismissed}, true},
		// As the console's filter: every verdict.
		{[]string{"--status", "resolved"}, ListFilter{Resolved: true}, true},
		{[]string{"--status", "closed"}, ListFilter{}, false},
		{[]string{"--bogus"}, ListFilter{}, false},
		{[]string{"extra"}, ListFilter{}, false},
	}
	for _, tc := range tests {
		got, err := ParseListArgs(tc.args)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrUsage)) || got != tc.want {
			t.Errorf("ParseListArgs(%q) = %+v, %v; want %+v ok %v", tc.args, got, err, tc.want, tc.ok)
		}
	}
}

func TestListFilterAndSort(t *testing.T) {
	rs := []Report{
		{ID: ReportID{1, 1}, Draft: Draft{Reportee: bob}, Priority: 1, Received: t0},
		{ID: ReportID{3, 1}, Draft: Draft{Reportee: bob}, Priority: 2, Received: t0.Add(time.Minute)},
		{ID: ReportID{5, 1}, Draft: Draft{Reportee: carol}, Priority: 2, Received: t0},
		{ID: ReportID{5, 2}, Draft: Draft{Reportee: bob}, Priority: 1, Received: t0, Resolution: &Resolution{Action: rules.ActionDismiss}},
		{ID: ReportID{1, 2}, Draft: Draft{Reportee: carol}, Priority: 1, Received: t0},
	}
	Sort(rs)
	var order []string
	for _, r := range rs {
		order = append(order, r.ID.String())
	}
	if got := strings.Join(order, " "); got != "5-1 3-1 1-1 1-2 5-2" {
		t.Errorf("order %s", got)
	}
	count := func(f ListFilter) (n int) {
		for i := range rs {
			if f.Match(&rs[i]) {
				n++
			}
		}
		return n
	}
	if n := count(ListFilter{Status: rules.StatusOpen}); n != 4 {
		t.Errorf("open: %d", n)
	}
	if n := count(ListFilter{Resolved: true}); n != 1 {
		t.Errorf("resolved: %d", n)
	}
	if n := count(ListFilter{Status: rules.StatusOpen, Reportee: "bob"}); n != 2 {
		t.Errorf("open against bob (any case): %d", n)
	}
	if n := count(ListFilter{Status: rules.StatusDismissed}); n != 1 {
		t.Errorf("dismissed: %d", n)
	}
	if n := count(ListFilter{}); n != 5 {
		t.Errorf("any: %d", n)
	}
}

func TestParseResolveArgs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want ResolveArgs
		ok   bool
	}{
		{"suspend", []string{"12-3", "--action", "suspend", "--days", "3", "--note", "flamed\x1b[2J all game"},
			ResolveArgs{ID: ReportID{12, 3}, Action: rules.ActionSuspend, Days: 3, Note: "flamed[2J all game"}, true},
		{"id after flags", []string{"--action=warn", "12-3"}, ResolveArgs{ID: ReportID{12, 3}, Action: rules.ActionWarn}, true},
		{"warn with days", []string{"1-1", "--action", "warn", "--days", "14"}, ResolveArgs{ID: ReportID{1, 1}, Action: rules.ActionWarn, Days: 14}, true},
		{"dismiss", []string{"1-1", "--action", "dismiss"}, ResolveArgs{ID: ReportID{1, 1}, Action: rules.ActionDismiss}, true},
		{"dismiss with days", []string{"1-1", "--action", "dismiss", "--days", "2"}, ResolveArgs{}, false},
		{"suspend without days", []string{"1-1", "--action", "suspend"}, ResolveArgs{}, false},
		{"days too many", []string{"1-1", "--action", "suspend", "--days", "3651"}, ResolveArgs{}, false},
		{"negative days", []string{"1-1", "--action", "warn", "--days", "-1"}, ResolveArgs{}, false},
		{"no action", []string{"1-1"}, ResolveArgs{}, false},
		{"unknown action", []string{"1-1", "--action", "ban", "--days", "3"}, ResolveArgs{}, false},
		{"no id", []string{"--action", "warn"}, ResolveArgs{}, false},
		{"bad id", []string{"12", "--action", "warn"}, ResolveArgs{}, false},
		{"two ids", []string{"1-1", "--action", "warn", "2-2"}, ResolveArgs{}, false},
		{"note too long", []string{"1-1", "--action", "warn", "--note", strings.Repeat("n", MaxNoteRunes+1)}, ResolveArgs{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseResolveArgs(tc.args)
			if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrUsage)) || got != tc.want {
				t.Errorf("= %+v, %v; want %+v ok %v", got, err, tc.want, tc.ok)
			}
		})
	}
	a, _ := ParseResolveArgs([]string{"1-1", "--action", "warn", "--note", "x"})
	if res := a.Resolution("admin", t0); res != (Resolution{Report: ReportID{1, 1}, Action: rules.ActionWarn, Note: "x", Moderator: "admin", Time: t0}) {
		t.Errorf("Resolution = %+v", res)
	}
}

func TestCheckResolvable(t *testing.T) {
	r := Report{ID: ReportID{1, 1}}
	if err := CheckResolvable(&r); err != nil {
		t.Fatal(err)
	}
	r.Resolution = &Resolution{Action: rules.ActionWarn, Time: t0}
	if err := CheckResolvable(&r); !errors.Is(err, ErrAlreadyResolved) {
		t.Fatalf("= %v", err)
	}
}

func sampleReport() Report {
	return Report{ID: ReportID{1, 4}, Reporter: alice, Received: t0, SysInfo: "MAC|OS", Priority: 3,
		Draft: Draft{Source: SourceMaster, Reportee: bob, Reason: reportsapi.ReasonAFK, Text: "stood \x1b[31m still",
			RawText: "stood still\\''", Match: "151234", Minute: 7, Truncated: true}}
}

func TestFormatList(t *testing.T) {
	var b strings.Builder
	rs := []Report{sampleReport()}
	long := sampleReport()
	long.ID.Seq, long.Text = 5, strings.Repeat("x", 70)
	rs = append(rs, long)
	if err := FormatList(&b, rs); err != nil {
		t.Fatal(err)
	}
	want := `1-4          open      p3  2026-11-23 12:00:00Z  "Alice" -> "Bob"  afk  "stood \x1b[31m still"
1-5          open      p3  2026-11-23 12:00:00Z  "Alice" -> "Bob"  afk  "` + strings.Repeat("x", 60) + `…"
2 report(s)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestFormatShow(t *testing.T) {
	r := sampleReport()
	m := Moderation{}.Apply(Resolution{Report: r.ID, Action: rules.ActionSuspend, Days: 2}, r.Reason, t0)
	r.Resolution = &Resolution{Report: r.ID, Action: rules.ActionSuspend, Days: 2, Note: "afk 3 games", Moderator: "admin", Time: t0}
	var b strings.Builder
	if err := FormatShow(&b, &r, &m, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	want := `report:     1-4
status:     suspended
priority:   3
received:   2026-11-23 12:00:00Z
via:        /master/report/report
reporter:   "Alice" (account 1)
reportee:   "Bob" (account 2)
reason:     Refusal to Participate / Avoiding AFK (afk)
match:      "151234"
minute:     7
text:       "stood \x1b[31m still" (cut)
raw text:   "stood still\\''"
sysinfo:    "MAC|OS"
resolution: suspend 2 day(s) by "admin" at 2026-11-23 12:00:00Z
note:       "afk 3 games"
standing:   suspended until 2026-11-25 12:00:00Z (guilty level 1)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := FormatResolved(&b, &r, m, t0); err != nil {
		t.Fatal(err)
	}
	if want := "report 1-4 suspended; \"Bob\" is suspended until 2026-11-25 12:00:00Z\n"; b.String() != want {
		t.Errorf("resolved: %q", b.String())
	}
}

// TestStandingSentence: the resolution's confirmation reads as a sentence
// ("is under a warning until", not "is now warning until").
func TestStandingSentence(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	until := now.Add(48 * time.Hour)
	for _, tc := range []struct {
		m    Moderation
		want string
	}{
		{Moderation{}, "is in good standing"},
		{Moderation{Standing: rules.StandingWarning, Until: until}, "is under a warning until 2026-11-25 12:00:00Z"},
		{Moderation{Standing: rules.StandingSuspended, Until: until}, "is suspended until 2026-11-25 12:00:00Z"},
		{Moderation{Standing: rules.StandingWarning, Until: now}, "is in good standing"}, // expired
	} {
		if got := tc.m.StandingSentence(now); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.m, got, tc.want)
		}
	}
}
