package reports

import (
	"context"
	"errors"
	"net"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/limit"
	rules "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/wire"
)

var on = Config{}

// report2Body builds a report2.php form; each report is name, match, type, body, time.
func report2Body(accountID, cookie string, reports ...[5]string) string {
	v := url.Values{"account_id": {accountID}, "cookie": {cookie}}
	for _, r := range reports {
		v["offenderName[]"] = append(v["offenderName[]"], r[0])
		v["match_id[]"] = append(v["match_id[]"], r[1])
		v["type[]"] = append(v["type[]"], r[2])
		v["body[]"] = append(v["body[]"], r[3])
		v["time[]"] = append(v["time[]"], r[4])
	}
	return v.Encode()
}

func masterBody(reporterID, cookie, name, reason, desc string) string {
	return url.Values{"reporter_id": {reporterID}, "cookie": {cookie}, "reportee_name": {name},
		"reason_type": {reason}, "report_description": {desc}}.Encode()
}

func TestReport2Single(t *testing.T) {
	f, c := newFake(), &clock{t0}
	h := newHandlers(f, c, on)
	got := h.Report2(context.Background(), request(t, PathReport2,
		report2Body("1", aliceCookie, [5]string{"Bob", "151234", "1", "he flamed\nall game", "12"})))
	if !slices.Equal(got, Report2Reply{"true", "1"}) {
		t.Fatalf("reply = %q", got)
	}
	all := f.all()
	if len(all) != 1 {
		t.Fatalf("stored %d reports", len(all))
	}
	r := all[0]
	want := Report{ID: ReportID{1, 1}, Reporter: alice, Received: t0, SysInfo: "MAC|OS|CPU|GPU|RAM", Priority: 1,
		Draft: Draft{Source: SourceReport2, Reportee: bob, Reason: reportsapi.ReasonChatAbuse, Text: "he flamed all game",
			RawText: "he flamed\nall game", Match: "151234", Minute: 12}}
	if r != want {
		t.Errorf("stored\n%+v\nwant\n%+v", r, want)
	}
	if r.Status() != rules.StatusOpen {
		t.Errorf("status %v", r.Status())
	}
}

func TestReport2Multi(t *testing.T) {
	f, c := newFake(), &clock{t0}
	h := newHandlers(f, c, on)
	got := h.Report2(context.Background(), request(t, PathReport2, report2Body("1", aliceCookie,
		[5]string{"Bob", "9", "5", "bad name", "1"},
		[5]string{"Carol", "9", "6", "afk", "2"},
		[5]string{"Nobody", "9", "1", "x", "3"}, // unknown player: this one only
		[5]string{"Dave", "9", "7", "x", "4"},   // unknown type: this one only
		[5]string{"Dave", "9", "2", "fed", "5"},
	)))
	if !slices.Equal(got, Report2Reply{"true", "3"}) {
		t.Fatalf("reply = %q", got)
	}
	all := f.all()
	if len(all) != 3 {
		t.Fatalf("stored %d reports", len(all))
	}
	// The specification's table holds for report2.php: 5 = bad nickname, 6 = AFK.
	wants := []struct {
		who    Account
		reason reportsapi.Reason
		seq    uint32
		minute int
	}{{bob, reportsapi.ReasonBadNickname, 1, 1}, {carol, reportsapi.ReasonAFK, 2, 2}, {dave, reportsapi.ReasonFeeding, 3, 5}}
	for i, w := range wants {
		r := all[i]
		if r.Reportee != w.who || r.Reason != w.reason || r.ID.Seq != w.seq || r.Minute != w.minute {
			t.Errorf("report %d: %v %v seq %d minute %d; want %v %v %d %d", i, r.Reportee.Nickname, r.Reason, r.ID.Seq, r.Minute,
				w.who.Nickname, w.reason, w.seq, w.minute)
		}
	}
}

func TestReport2Refused(t *testing.T) {
	one := [5]string{"Bob", "9", "1", "text", "3"}
	tests := []struct {
		name string
		body string
	}{
		{"bad cookie", report2Body("1", strings.Repeat("e", 32), one)},
		{"other account's id", report2Body("2", aliceCookie, one)},
		{"account id not a number", report2Body("alice", aliceCookie, one)},
		{"no account id", func() string {
			v, _ := url.ParseQuery(report2Body("1", aliceCookie, one))
			v.Del("account_id")
			return v.Encode()
		}()},
		{"no reports", url.Values{"account_id": {"1"}, "cookie": {aliceCookie}}.Encode()},
		{"unknown player", report2Body("1", aliceCookie, [5]string{"Nobody", "9", "1", "x", "3"})},
		{"self", report2Body("1", aliceCookie, [5]string{"Alice", "9", "1", "x", "3"})},
		{"own sub-account", report2Body("1", aliceCookie, [5]string{"AliceAlt", "9", "1", "x", "3"})},
		{"type 0", report2Body("1", aliceCookie, [5]string{"Bob", "9", "0", "x", "3"})},
		{"type 7", report2Body("1", aliceCookie, [5]string{"Bob", "9", "7", "x", "3"})},
		{"type text", report2Body("1", aliceCookie, [5]string{"Bob", "9", "chat", "x", "3"})},
		{"minute negative", report2Body("1", aliceCookie, [5]string{"Bob", "9", "1", "x", "-1"})},
		{"minute text", report2Body("1", aliceCookie, [5]string{"Bob", "9", "1", "x", "12:30"})},
		{"raw text too long", report2Body("1", aliceCookie, [5]string{"Bob", "9", "1", strings.Repeat("x", MaxRawTextBytes+1), "3"})},
		{"match id too long", report2Body("1", aliceCookie, [5]string{"Bob", strings.Repeat("9", 65), "1", "x", "3"})},
		{"empty name", report2Body("1", aliceCookie, [5]string{"  ", "9", "1", "x", "3"})},
		{"fewer types", "account_id=1&cookie=" + aliceCookie + "&offenderName%5B%5D=Bob&offenderName%5B%5D=Carol&type%5B%5D=1"},
		{"more bodies", "account_id=1&cookie=" + aliceCookie + "&offenderName%5B%5D=Bob&type%5B%5D=1&body%5B%5D=a&body%5B%5D=b"},
		{"too many reports", func() string {
			var rs [][5]string
			for range MaxPerRequest + 1 {
				rs = append(rs, one)
			}
			return report2Body("1", aliceCookie, rs...)
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			h := newHandlers(f, &clock{t0}, on)
			got := h.Report2(context.Background(), request(t, PathReport2, tc.body))
			if !slices.Equal(got, Report2Reply{"false"}) {
				t.Errorf("reply = %q, want [false]", got)
			}
			if n := len(f.all()); n != 0 {
				t.Errorf("stored %d reports", n)
			}
		})
	}
}

func TestReport2OptionalArrays(t *testing.T) {
	// match_id[], body[] and time[] may be left out as a whole.
	f := newFake()
	h := newHandlers(f, &clock{t0}, on)
	body := "account_id=1&cookie=" + aliceCookie + "&offenderName%5B%5D=Bob&offenderName%5B%5D=Carol&type%5B%5D=1&type%5B%5D=3"
	if got := h.Report2(context.Background(), request(t, PathReport2, body)); !slices.Equal(got, Report2Reply{"true", "2"}) {
		t.Fatalf("reply = %q", got)
	}
	for _, r := range f.all() {
		if r.Match != "" || r.Minute != 0 || r.Text != "" {
			t.Errorf("defaults not empty: %+v", r.Draft)
		}
	}
}

func TestReport2Disabled(t *testing.T) {
	f := newFake()
	h := newHandlers(f, &clock{t0}, Config{Disabled: true})
	got := h.Report2(context.Background(), request(t, PathReport2, report2Body("1", aliceCookie, [5]string{"Bob", "9", "1", "x", "3"})))
	if !slices.Equal(got, Report2Reply{"false"}) || len(f.all()) != 0 {
		t.Errorf("reply = %q, stored %d", got, len(f.all()))
	}
}

func TestReportMaster(t *testing.T) {
	accepted := ReportReply{Success: true, ReportSuccess: ReportAccepted, ReportEnabled: true}
	tests := []struct {
		name       string
		body       string
		want       ReportReply
		wantReason reportsapi.Reason
		wantText   string
	}{
		// The client's own codes: 5 = AFK, 6 = bad nickname.
		{"type 5 is AFK", masterBody("1", aliceCookie, "Bob", "5", "abc def'"), accepted, reportsapi.ReasonAFK, "abc def"},
		{"type 6 is bad nickname", masterBody("1", aliceCookie, "Bob", "6", `it\'s rude'`), accepted, reportsapi.ReasonBadNickname, "it's rude"},
		{"type 1", masterBody("1", aliceCookie, "Bob", "1", `\'\''`), accepted, reportsapi.ReasonChatAbuse, "''"},
		{"bad cookie", masterBody("1", "nope", "Bob", "1", "x'"), failed(ErrBadCookie), 0, ""},
		{"other reporter id", masterBody("3", aliceCookie, "Bob", "1", "x'"), failed(ErrNotReporter), 0, ""},
		{"no reporter id", url.Values{"cookie": {aliceCookie}, "reportee_name": {"Bob"}, "reason_type": {"1"}}.Encode(), failed(ErrBadRequest), 0, ""},
		{"unknown player", masterBody("1", aliceCookie, "Zed", "1", "x'"), failed(ErrUnknownPlayer), 0, ""},
		{"self", masterBody("1", aliceCookie, "Alice", "1", "x'"), failed(&RefusedError{reportsapi.RefusalSelfReport}), 0, ""},
		{"unknown type", masterBody("1", aliceCookie, "Bob", "9", "x'"), failed(ErrUnknownReason), 0, ""},
		{"raw too long", masterBody("1", aliceCookie, "Bob", "1", strings.Repeat("y", MaxRawTextBytes+1)), failed(ErrTextTooLong), 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			h := newHandlers(f, &clock{t0}, on)
			got := h.Report(context.Background(), request(t, PathReport, tc.body))
			if got != tc.want {
				t.Fatalf("reply = %+v, want %+v", got, tc.want)
			}
			all := f.all()
			if !tc.want.Success {
				if len(all) != 0 {
					t.Fatalf("stored %d reports on failure", len(all))
				}
				return
			}
			if len(all) != 1 || all[0].Reason != tc.wantReason || all[0].Text != tc.wantText || all[0].Source != SourceMaster {
				t.Fatalf("stored %+v", all)
			}
			v, _ := url.ParseQuery(tc.body)
			if all[0].RawText != v.Get("report_description") {
				t.Errorf("raw text %q, want %q", all[0].RawText, v.Get("report_description"))
			}
		})
	}
}

func failed(err error) ReportReply {
	return ReportReply{ReportSuccess: ReportFailed, ReportEnabled: true, Message: Message(err)}
}

func TestReportMasterDisabled(t *testing.T) {
	f := newFake()
	h := newHandlers(f, &clock{t0}, Config{Disabled: true})
	got := h.Report(context.Background(), request(t, PathReport, masterBody("1", aliceCookie, "Bob", "1", "x'")))
	want := ReportReply{Success: true, ReportSuccess: ReportDisabled, Message: Message(ErrDisabled)}
	if got != want || len(f.all()) != 0 {
		t.Errorf("reply = %+v, stored %d", got, len(f.all()))
	}
}

func TestLongTextIsCut(t *testing.T) {
	f := newFake()
	h := newHandlers(f, &clock{t0}, on)
	text := strings.Repeat("é", 250) + "'"
	if got := h.Report(context.Background(), request(t, PathReport, masterBody("1", aliceCookie, "Bob", "1", text))); !got.Success {
		t.Fatalf("reply = %+v", got)
	}
	r := f.all()[0]
	if r.Text != strings.Repeat("é", 210) || !r.Truncated || r.RawText != text {
		t.Errorf("text %d runes, truncated %v", len([]rune(r.Text)), r.Truncated)
	}
}

func TestRateLimits(t *testing.T) {
	f, c := newFake(), &clock{t0}
	h := newHandlers(f, c, Config{Limits: reportsapi.Limits{PerDay: 4, PerReportee: 2}})
	send := func(name string) ReportReply {
		return h.Report(context.Background(), request(t, PathReport, masterBody("1", aliceCookie, name, "1", "x'")))
	}
	limited := failed(&RefusedError{reportsapi.RefusalReporteeLimit})
	if r := send("Bob"); !r.Success {
		t.Fatalf("1st: %+v", r)
	}
	if r := send("Bob"); !r.Success {
		t.Fatalf("2nd: %+v", r)
	}
	if r := send("Bob"); r != limited {
		t.Fatalf("3rd against Bob: %+v, want %+v", r, limited)
	}
	if r := send("Carol"); !r.Success {
		t.Fatalf("Carol: %+v", r)
	}
	// One multi-report request cannot get around the limits: the 4th
	// report is accepted, the 5th is over the day's limit.
	got := h.Report2(context.Background(), request(t, PathReport2, report2Body("1", aliceCookie,
		[5]string{"Dave", "1", "1", "", "1"}, [5]string{"Dave", "1", "1", "", "1"})))
	if !slices.Equal(got, Report2Reply{"true", "1"}) {
		t.Fatalf("multi: %q", got)
	}
	daily := failed(&RefusedError{reportsapi.RefusalDailyLimit})
	if r := send("Carol"); r != daily {
		t.Fatalf("over the day: %+v", r)
	}
	// Other reporters are not affected.
	if r := h.Report(context.Background(), request(t, PathReport, masterBody("3", carolCookie, "Bob", "1", "x'"))); !r.Success {
		t.Fatalf("Carol reporting: %+v", r)
	}
	// The window is a rolling 24 hours.
	c.t = t0.Add(Window - time.Second)
	if r := send("Bob"); r != daily {
		t.Fatalf("just before the window ends: %+v", r)
	}
	c.t = t0.Add(Window)
	if r := send("Bob"); !r.Success {
		t.Fatalf("after the window: %+v", r)
	}
}

func TestPriorityRisesWithReporters(t *testing.T) {
	f := newFake()
	h := newHandlers(f, &clock{t0}, on)
	for i, cookie := range []string{carolCookie, daveCookie, aliceCookie} {
		id := []string{"3", "5", "1"}[i]
		if r := h.Report(context.Background(), request(t, PathReport, masterBody(id, cookie, "Bob", "1", "x'"))); !r.Success {
			t.Fatalf("report %d: %+v", i, r)
		}
	}
	got := map[string]int{}
	for _, r := range f.all() {
		got[r.Reporter.Nickname] = r.Priority
	}
	if got["Carol"] != 1 || got["Dave"] != 2 || got["Alice"] != 3 {
		t.Errorf("priorities %v, want Carol 1, Dave 2, Alice 3", got)
	}
}

func TestDecisionsAreChecked(t *testing.T) {
	tests := []struct {
		name   string
		decide Decider
		want   ReportReply
	}{
		{"accepted without priority", func(reportsapi.Facts) (reportsapi.Decision, error) { return reportsapi.Decision{Accept: true}, nil }, failed(ErrBadDecision)},
		{"priority too high", func(reportsapi.Facts) (reportsapi.Decision, error) {
			return reportsapi.Decision{Accept: true, Priority: 11}, nil
		}, failed(ErrBadDecision)},
		{"refused without refusal", func(reportsapi.Facts) (reportsapi.Decision, error) { return reportsapi.Decision{}, nil }, failed(ErrBadDecision)},
		{"unknown refusal", func(reportsapi.Facts) (reportsapi.Decision, error) { return reportsapi.Decision{Refusal: 42}, nil }, failed(ErrBadDecision)},
		{"plugin down", func(reportsapi.Facts) (reportsapi.Decision, error) {
			return reportsapi.Decision{}, errors.New("connection refused")
		}, failed(ErrUnavailable)},
		{"operator rule", func(reportsapi.Facts) (reportsapi.Decision, error) {
			return reportsapi.Decision{Refusal: reportsapi.RefusalRule}, nil
		}, failed(&RefusedError{reportsapi.RefusalRule})},
		{"operator priority", func(reportsapi.Facts) (reportsapi.Decision, error) {
			return reportsapi.Decision{Accept: true, Priority: 7}, nil
		},
			ReportReply{Success: true, ReportSuccess: ReportAccepted, ReportEnabled: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			f.decide = tc.decide
			h := newHandlers(f, &clock{t0}, on)
			if got := h.Report(context.Background(), request(t, PathReport, masterBody("1", aliceCookie, "Bob", "1", "x'"))); got != tc.want {
				t.Errorf("reply = %+v, want %+v", got, tc.want)
			}
			if n := len(f.all()); (n == 1) != tc.want.Success {
				t.Errorf("stored %d", n)
			}
		})
	}
}

func TestSubmitFailure(t *testing.T) {
	f := newFake()
	f.failNext = errors.Join(ErrUnavailable, errors.New("disk full"))
	h := newHandlers(f, &clock{t0}, on)
	if got := h.Report(context.Background(), request(t, PathReport, masterBody("1", aliceCookie, "Bob", "1", "x'"))); got != failed(ErrUnavailable) {
		t.Errorf("reply = %+v", got)
	}
	f.failNext = ErrUnavailable
	if got := h.Report2(context.Background(), request(t, PathReport2, report2Body("1", aliceCookie, [5]string{"Bob", "1", "1", "", "1"}))); !slices.Equal(got, Report2Reply{"false"}) {
		t.Errorf("report2 reply = %q", got)
	}
}

func TestReportInfo(t *testing.T) {
	f, c := newFake(), &clock{t0}
	h := newHandlers(f, c, on)
	ask := func(id, cookie string) InfoReply {
		return h.ReportInfo(context.Background(), request(t, PathReportInfo, url.Values{"account_id": {id}, "cookie": {cookie}}.Encode()))
	}
	if got := ask("2", bobCookie); got != (InfoReply{Success: true}) {
		t.Fatalf("normal: %+v", got)
	}
	for name, tc := range map[string][2]string{"bad cookie": {"2", "x"}, "other account": {"1", bobCookie}, "no id": {"", bobCookie}} {
		if got := ask(tc[0], tc[1]); got != (InfoReply{}) {
			t.Errorf("%s: %+v", name, got)
		}
	}

	id := ReportID{3, 1}
	f.mod[bob.ID] = f.mod[bob.ID].Apply(Resolution{Report: id, Action: rules.ActionSuspend, Days: 3, Note: "flaming"}, reportsapi.ReasonChatAbuse, t0)
	want := InfoReply{Success: true, ForcePopup: true, Status: 2, Reason: "Chat Abuse - flaming", GuiltyLevel: 1, EndDate: "2026-11-26 12:00:00"}
	if got := ask("2", bobCookie); got != want {
		t.Fatalf("suspended:\n%+v\nwant\n%+v", got, want)
	}
	want.ForcePopup = false // once
	if got := ask("2", bobCookie); got != want {
		t.Fatalf("suspended, second time:\n%+v\nwant\n%+v", got, want)
	}
	c.t = t0.Add(72 * time.Hour) // ends by itself
	if got := ask("2", bobCookie); got != (InfoReply{Success: true, GuiltyLevel: 1}) {
		t.Fatalf("after the end: %+v", got)
	}
}

func TestPositionalReplies(t *testing.T) {
	h := newHandlers(newFake(), &clock{t0}, on)
	for name, v := range map[string]any{
		"player_list": h.PlayerList(context.Background(), request(t, PathPlayerList, "")),
		"match_list":  h.MatchList(context.Background(), request(t, PathMatchList, "")),
	} {
		got, err := wire.Marshal(v)
		if err != nil || string(got) != `a:1:{i:0;i:0;}` {
			t.Errorf("%s = %s, %v", name, got, err)
		}
	}
	got, err := wire.Marshal(PlayerList{Players: []PlayerSlot{{Slot: 0, Nickname: "Alice"}, {Slot: 6, Nickname: "Bob"}, {Slot: 12, Nickname: "x"}}})
	want := `a:5:{i:0;i:1;i:1;s:5:"Alice";i:7;s:3:"Bob";i:11;i:0;i:17;i:6;}`
	if err != nil || string(got) != want {
		t.Errorf("player list = %s, %v; want %s", got, err, want)
	}
	got, err = wire.Marshal(MatchList{Matches: []string{"151234", "151240"}})
	if want := `a:3:{i:0;i:1;i:1;s:6:"151234";i:2;s:6:"151240";}`; err != nil || string(got) != want {
		t.Errorf("match list = %s, %v; want %s", got, err, want)
	}
}

// Many accounts of one address share one budget of reports (issue 22,
// item 6: 20 accounts of one address filed 360 top-priority reports in
// 0.5 s); another address has its own, and the budget refills.
func TestReportsPerAddress(t *testing.T) {
	f, c := newFake(), &clock{t0}
	h := newHandlers(f, c, Config{PerAddress: limit.Rate{Burst: 3, Every: time.Hour}})
	home, other := net.IPv4(192, 0, 2, 7), net.IPv4(198, 51, 100, 9)
	send := func(ip net.IP, id, cookie, name string) ReportReply {
		return h.Report(context.Background(), requestFrom(t, ip, PathReport, masterBody(id, cookie, name, "1", "x'")))
	}
	for _, r := range []struct{ id, cookie string }{{"1", aliceCookie}, {"3", carolCookie}, {"5", daveCookie}} {
		if got := send(home, r.id, r.cookie, "Bob"); !got.Success {
			t.Fatalf("account %s: %+v", r.id, got)
		}
	}
	limited := failed(ErrAddressLimit)
	if got := send(home, "2", bobCookie, "Alice"); got != limited {
		t.Fatalf("4th account of the address: %+v, want %+v", got, limited)
	}
	// Two reports in one request: the budget refuses both.
	got := h.Report2(context.Background(), requestFrom(t, home, PathReport2, report2Body("1", aliceCookie,
		[5]string{"Dave", "1", "1", "", "1"}, [5]string{"Carol", "1", "1", "", "1"})))
	if !slices.Equal(got, Report2Reply{"false"}) {
		t.Fatalf("report2 over the budget: %q", got)
	}
	if got := send(other, "2", bobCookie, "Alice"); !got.Success {
		t.Fatalf("another address: %+v", got)
	}
	if n := len(f.all()); n != 4 {
		t.Fatalf("stored %d reports, want 4", n)
	}
	c.t = c.t.Add(time.Hour)
	if got := send(home, "2", bobCookie, "Carol"); !got.Success {
		t.Fatalf("after the refill: %+v", got)
	}
}
