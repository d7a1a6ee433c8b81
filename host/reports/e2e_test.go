package reports_test

import (
	"context"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/reports"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/wire"
)

// e2e is a real server (clitest: bundled plugin subprocess, actors,
// on-disk storage) on loopback, with helpers for the reports paths.
type e2e struct {
	*clitest.Server
	t *testing.T
}

func startE2E(t *testing.T, mutate func(*config.Config)) *e2e {
	return &e2e{Server: clitest.Start(t, mutate), t: t}
}

func (s *e2e) account(login string) {
	s.t.Helper()
	s.Host(s.t, "account", "create", "--login", login, "--password", "pw")
}

func (s *e2e) login(login string) *client.Session {
	s.t.Helper()
	sess, err := s.Client.Login(context.Background(), login, "pw")
	if err != nil {
		s.t.Fatalf("login %s: %v", login, err)
	}
	return sess
}

func (s *e2e) post(path string, form url.Values) (*wire.Array, string) {
	s.t.Helper()
	r, err := s.Client.PostForm(context.Background(), path, form)
	if err != nil {
		s.t.Fatalf("POST %s: %v", path, err)
	}
	if r.Status != 200 {
		s.t.Fatalf("POST %s: HTTP %d", path, r.Status)
	}
	a, err := r.PHP()
	if err != nil {
		s.t.Fatalf("POST %s: %v in %q", path, err, r.Body)
	}
	return a, string(r.Body)
}

// report2 posts /rap/report2.php with one report per entry of rows
// (name, type, body, match, minute).
func (s *e2e) report2(sess *client.Session, rows ...[5]string) []string {
	s.t.Helper()
	f := url.Values{"account_id": {sess.AccountID}, "cookie": {sess.Cookie}}
	for _, r := range rows {
		f["offenderName[]"] = append(f["offenderName[]"], r[0])
		f["type[]"] = append(f["type[]"], r[1])
		f["body[]"] = append(f["body[]"], r[2])
		f["match_id[]"] = append(f["match_id[]"], r[3])
		f["time[]"] = append(f["time[]"], r[4])
	}
	return s.report2Form(f)
}

func (s *e2e) report2Form(f url.Values) []string {
	s.t.Helper()
	a, _ := s.post("/rap/report2.php", f)
	var out []string
	for i := 0; i < a.Len(); i++ {
		v, _ := a.String(i)
		out = append(out, v)
	}
	return out
}

// masterReport posts /master/report/report and answers success as text
// ("1" for b:1, "false" for the string), report_success and the message.
func (s *e2e) masterReport(reporterID, cookie, reportee, reason, text string) (success string, rs int64) {
	s.t.Helper()
	a, _ := s.post("/master/report/report", url.Values{"reporter_id": {reporterID}, "cookie": {cookie},
		"reportee_name": {reportee}, "reason_type": {reason}, "report_description": {text}})
	v, _ := a.Get("success")
	switch v := v.(type) {
	case bool:
		success = map[bool]string{true: "1", false: ""}[v]
	case string:
		success = v
	}
	rs, _ = a.Int("report_success")
	if en, _ := a.Bool("report_enabled"); !en {
		s.t.Errorf("report_enabled false in %v", a)
	}
	return success, rs
}

func (s *e2e) info(accountID, cookie string) *wire.Array {
	s.t.Helper()
	a, _ := s.post("/master/report/reportinforequest", url.Values{"account_id": {accountID}, "cookie": {cookie}})
	return a
}

func field(a *wire.Array, key string) string {
	v, ok := a.Get(key)
	if !ok {
		return "<missing>"
	}
	switch v := v.(type) {
	case bool:
		if v {
			return "true"
		}
		return "false"
	case int64:
		return strconv.FormatInt(v, 10)
	case string:
		return v
	}
	return "?"
}

func countLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// TestReportsEndToEnd runs every endpoint against a real server: both
// report paths with single and several reports, the 5/6 mapping per path,
// the text quirk, each invalid case, both limits, priority from several
// reporters, the moderation commands, a suspension in the next session
// record and in reportinforequest (popup once), and a warning.
func TestReportsEndToEnd(t *testing.T) {
	s := startE2E(t, func(c *config.Config) {
		set := reports.SettingsOf(c)
		set.PerDay, set.PerReportee = 6, 2
		config.SetSection(c, "reports", set)
		// The test's accounts are seconds old: without this their reports
		// would all have priority 1 (new accounts, TestNewAccountReportsWeighLess).
		c.Limits.NewAccountAge = config.Duration{}
	})
	for _, l := range []string{"alice", "bob", "carol", "dave", "erin"} {
		s.account(l)
	}
	al := s.login("alice")
	id := al.AccountID

	// Single report on the old path: 5 is Bad Nickname there.
	if got := s.report2(al, [5]string{"bob", "5", "offensive name", "123456", "7"}); strings.Join(got, ",") != "true,1" {
		t.Fatalf("report2 single = %v", got)
	}
	// The new path: 5 is AFK there; \' and the trailing ' are undone.
	if ok, rs := s.masterReport(id, al.Cookie, "carol", "5", `it\'s afk'`); ok != "1" || rs != 1 {
		t.Fatalf("master report = %q, %d", ok, rs)
	}
	// Several reports in one request; the unknown player drops alone.
	got := s.report2(al, [5]string{"carol", "1", "rude", "9", "3"}, [5]string{"dave", "2", "feeds", "9", "4"},
		[5]string{"nobody", "3", "x", "9", "5"})
	if strings.Join(got, ",") != "true,2" {
		t.Fatalf("report2 multi = %v", got)
	}

	// Invalid requests: nothing is stored by any of them.
	invalid := []struct {
		name                          string
		reporter, cookie, who, reason string
		text                          string
	}{
		{"bad cookie", id, strings.Repeat("0", 32), "dave", "1", "x"},
		{"reporter is not the session's", "999", al.Cookie, "dave", "1", "x"},
		{"unknown reportee", id, al.Cookie, "nobody", "1", "x"},
		{"self report", id, al.Cookie, "alice", "1", "x"},
		{"unknown reason", id, al.Cookie, "dave", "7", "x"},
		{"missing reason", id, al.Cookie, "dave", "", "x"},
		{"missing reportee", id, al.Cookie, "", "1", "x"},
		{"raw text over 4 KiB", id, al.Cookie, "dave", "1", strings.Repeat("a", 5000)},
		{"reportee limit (carol twice already)", id, al.Cookie, "carol", "2", "again"},
	}
	for _, tc := range invalid {
		if ok, rs := s.masterReport(tc.reporter, tc.cookie, tc.who, tc.reason, tc.text); ok != "false" || rs != 2 {
			t.Errorf("%s: success %q, report_success %d; want \"false\", 2", tc.name, ok, rs)
		}
	}
	bad2 := []struct {
		name string
		form url.Values
	}{
		{"arrays of different lengths", url.Values{"account_id": {id}, "cookie": {al.Cookie},
			"offenderName[]": {"dave", "erin"}, "type[]": {"1"}}},
		{"no reports", url.Values{"account_id": {id}, "cookie": {al.Cookie}}},
		{"bad cookie", url.Values{"account_id": {id}, "cookie": {"nope"}, "offenderName[]": {"dave"}, "type[]": {"1"}}},
		{"unknown type", url.Values{"account_id": {id}, "cookie": {al.Cookie}, "offenderName[]": {"dave"}, "type[]": {"9"}}},
	}
	for _, tc := range bad2 {
		if got := s.report2Form(tc.form); strings.Join(got, ",") != "false" {
			t.Errorf("report2 %s = %v, want [false]", tc.name, got)
		}
	}
	if out := s.Host(t, "reports", "list", "--status", "any"); countLine(out) != "4 report(s)" {
		t.Fatalf("after invalid requests:\n%s", out)
	}

	// Fill the day: 6 per day. Report 5 and 6 are accepted, the 7th refused.
	if got := s.report2(al, [5]string{"bob", "6", "left", "77", "12"}); strings.Join(got, ",") != "true,1" {
		t.Fatalf("5th report = %v", got)
	}
	if ok, rs := s.masterReport(id, al.Cookie, "dave", "4", "abuse"); ok != "1" || rs != 1 {
		t.Fatalf("6th report = %q %d", ok, rs)
	}
	if got := s.report2(al, [5]string{"erin", "1", "x", "1", "1"}); strings.Join(got, ",") != "false" {
		t.Errorf("7th report (daily limit) = %v", got)
	}
	if ok, rs := s.masterReport(id, al.Cookie, "erin", "1", "x"); ok != "false" || rs != 2 {
		t.Errorf("7th report on the new path = %q %d", ok, rs)
	}

	// What was stored: the meaning of 5 and 6 per path, the text quirk.
	show := func(n string) string { return s.Host(t, "reports", "show", id+"-"+n) }
	for _, tc := range []struct{ n, want string }{
		{"1", "reason:     Bad Nickname / Clan Name (bad_nickname)"},
		{"1", `match:      "123456"`},
		{"1", "minute:     7"},
		{"1", "via:        /rap/report2.php"},
		{"1", `sysinfo:    "pre_auth=test|client srpAuth=test|client"`},
		{"2", "reason:     Refusal to Participate / Avoiding AFK (afk)"},
		{"2", `text:       "it's afk"`},
		{"2", `raw text:   "it\\'s afk'"`},
		{"2", "via:        /master/report/report"},
		{"3", "reason:     Chat Abuse (chat_abuse)"},
		{"5", "reason:     Refusal to Participate / Avoiding AFK (afk)"},
		{"6", "reason:     Ability / Item Abuse (ability_abuse)"},
		{"6", "priority:   1"},
	} {
		if out := show(tc.n); !strings.Contains(out, tc.want) {
			t.Errorf("show %s-%s lacks %q:\n%s", id, tc.n, tc.want, out)
		}
	}

	// Another reporter against carol: priority 2 (alice has open reports).
	bo := s.login("bob")
	if ok, rs := s.masterReport(bo.AccountID, bo.Cookie, "carol", "1", "flames"); ok != "1" || rs != 1 {
		t.Fatalf("bob's report = %q %d", ok, rs)
	}
	if out := s.Host(t, "reports", "show", bo.AccountID+"-1"); !strings.Contains(out, "priority:   2") {
		t.Errorf("bob's report against carol:\n%s", out)
	}

	// player_list and match_list: well-formed "nothing found".
	for _, p := range []string{"/rap/player_list.php", "/rap/match_list2.php"} {
		if _, body := s.post(p, url.Values{"cookie": {al.Cookie}}); body != "a:1:{i:0;i:0;}" {
			t.Errorf("%s = %q", p, body)
		}
	}

	// Good standing.
	a := s.info(id, al.Cookie)
	if field(a, "success") != "true" || field(a, "status") != "0" || field(a, "forcePopup") != "false" || field(a, "endDate") != "" {
		t.Errorf("alice's status: %v", a)
	}
	if a := s.info(bo.AccountID, al.Cookie); field(a, "success") != "false" {
		t.Errorf("status of another account: %v", a)
	}
	if rec := bo.Record; field(rec, "susp_id") != "0" {
		t.Errorf("bob's first record susp_id = %q", field(rec, "susp_id"))
	}

	// Moderation: the queue, suspend bob, warn carol.
	out := s.Host(t, "reports", "list")
	if countLine(out) != "7 report(s)" || !strings.HasPrefix(out, bo.AccountID+"-1 ") {
		t.Errorf("open queue (highest priority first):\n%s", out)
	}
	if out := s.Host(t, "reports", "list", "--reportee", "BOB"); countLine(out) != "2 report(s)" {
		t.Errorf("bob's reports:\n%s", out)
	}
	out = s.Host(t, "reports", "resolve", id+"-1", "--action", "suspend", "--days", "3", "--note", "offensive name", "--by", "mod1")
	if !strings.Contains(out, "suspended") || !strings.Contains(out, `"bob" is suspended until`) {
		t.Errorf("resolve: %q", out)
	}
	if code, _, errOut := s.Run("reports", "resolve", id+"-1", "--action", "warn"); code == 0 || !strings.Contains(errOut, "already resolved") {
		t.Errorf("second resolve: exit %d, %q", code, errOut)
	}
	if code, _, _ := s.Run("reports", "resolve", id+"-99", "--action", "warn"); code == 0 {
		t.Error("resolve of an unknown report succeeded")
	}
	if code, _, _ := s.Run("reports", "resolve", id+"-5", "--action", "suspend"); code == 0 {
		t.Error("suspend without --days succeeded")
	}
	if out := show("1"); !strings.Contains(out, `resolution: suspend 3 day(s) by "mod1"`) || !strings.Contains(out, "standing:   suspended until") {
		t.Errorf("show after resolve:\n%s", out)
	}

	// Bob's next session shows the suspension; he can still log in.
	bo2 := s.login("bob")
	if got := field(bo2.Record, "susp_id"); got != "1" {
		t.Errorf("suspended bob's record susp_id = %q, want 1", got)
	}
	a = s.info(bo2.AccountID, bo2.Cookie)
	endDate := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`)
	if field(a, "success") != "true" || field(a, "status") != "2" || field(a, "forcePopup") != "true" ||
		field(a, "reason") != "Bad Nickname / Clan Name - offensive name" || field(a, "guiltyLevel") != "1" ||
		!endDate.MatchString(field(a, "endDate")) {
		t.Errorf("bob's status: %v", a)
	}
	if a := s.info(bo2.AccountID, bo2.Cookie); field(a, "forcePopup") != "false" || field(a, "status") != "2" {
		t.Errorf("bob's status asked again (popup shown once): %v", a)
	}
	// A suspended player may still report.
	if ok, rs := s.masterReport(bo2.AccountID, bo2.Cookie, "dave", "1", "x"); ok != "1" || rs != 1 {
		t.Errorf("suspended bob's report = %q %d", ok, rs)
	}

	// A warning.
	s.Host(t, "reports", "resolve", id+"-3", "--action", "warn", "--note", "be nice")
	ca := s.login("carol")
	if a := s.info(ca.AccountID, ca.Cookie); field(a, "status") != "1" || field(a, "forcePopup") != "true" {
		t.Errorf("carol's status after a warning: %v", a)
	}
	if got := field(ca.Record, "susp_id"); got != "0" {
		t.Errorf("warned carol's susp_id = %q, want 0", got)
	}
	if out := s.Host(t, "reports", "list", "--status", "warned"); countLine(out) != "1 report(s)" || !strings.HasPrefix(out, id+"-3 ") {
		t.Errorf("warned reports:\n%s", out)
	}
	if out := s.Host(t, "reports", "list", "--status", "resolved", "--reportee", "carol"); countLine(out) != "1 report(s)" || !strings.HasPrefix(out, id+"-3 ") {
		t.Errorf("resolved reports against carol:\n%s", out)
	}
}

// TestReportsDisabled: with [reports] disabled both paths say so and store
// nothing; reportinforequest still answers.
func TestReportsDisabled(t *testing.T) {
	s := startE2E(t, func(c *config.Config) {
		set := reports.SettingsOf(c)
		set.Disabled = true
		config.SetSection(c, "reports", set)
	})
	s.account("alice")
	s.account("bob")
	al := s.login("alice")
	a, _ := s.post("/master/report/report", url.Values{"reporter_id": {al.AccountID}, "cookie": {al.Cookie},
		"reportee_name": {"bob"}, "reason_type": {"1"}, "report_description": {"x"}})
	if rs, _ := a.Int("report_success"); rs != 3 || field(a, "report_enabled") != "false" {
		t.Errorf("disabled master report: %v", a)
	}
	if got := s.report2(al, [5]string{"bob", "1", "x", "1", "1"}); strings.Join(got, ",") != "false" {
		t.Errorf("disabled report2 = %v", got)
	}
	if out := s.Host(t, "reports", "list", "--status", "any"); countLine(out) != "0 report(s)" {
		t.Errorf("stored while disabled:\n%s", out)
	}
	if a := s.info(al.AccountID, al.Cookie); field(a, "success") != "true" {
		t.Errorf("status while disabled: %v", a)
	}
}

// TestReportsPluginSwap points the area at a replacement plugin binary
// (plugins/examples/strictreports): it refuses reports of impersonation,
// which the bundled rule accepts, and gives chat abuse the top priority.
func TestReportsPluginSwap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "strictreports")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/honmaster/masterserver/plugins/examples/strictreports").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	s := startE2E(t, func(c *config.Config) {
		p := c.Plugins["reports"]
		p.Path = bin
		c.Plugins["reports"] = p
	})
	if out := s.Host(t, "plugins"); !strings.Contains(out, "strictreports@1.0.0") {
		t.Fatalf("plugins:\n%s", out)
	}
	s.account("alice")
	s.account("bob")
	al := s.login("alice")
	if ok, rs := s.masterReport(al.AccountID, al.Cookie, "bob", "3", "says he is staff"); ok != "false" || rs != 2 {
		t.Errorf("impersonation report under strictreports = %q %d, want refused", ok, rs)
	}
	if ok, rs := s.masterReport(al.AccountID, al.Cookie, "bob", "1", "flames"); ok != "1" || rs != 1 {
		t.Fatalf("chat abuse report = %q %d", ok, rs)
	}
	if out := s.Host(t, "reports", "show", al.AccountID+"-1"); !strings.Contains(out, "priority:   10") {
		t.Errorf("strictreports' priority not applied:\n%s", out)
	}
}

// TestReportsByNicknameEndToEnd: a player whose operator-set nickname is
// not its login is reported by that nickname over both paths, and the
// reports list under that account.
func TestReportsByNicknameEndToEnd(t *testing.T) {
	s := startE2E(t, nil)
	s.account("Reporter")
	s.Host(t, "account", "create", "--login", "secret_login", "--password", "pw", "--nickname", "ShownName")
	rep := s.login("Reporter")
	if ok, rs := s.masterReport(rep.AccountID, rep.Cookie, "ShownName", "1", "spam'"); ok != "1" || rs != 1 {
		t.Fatalf("report by nickname: success %q, report_success %d", ok, rs)
	}
	if ok, rs := s.masterReport(rep.AccountID, rep.Cookie, "secret_login", "1", "spam'"); ok != "false" || rs != 2 {
		t.Errorf("report by login: success %q, report_success %d; want refused", ok, rs)
	}
	if got := s.report2(rep, [5]string{"ShownName", "2", "feeding", "9", "3"}); len(got) != 2 || got[0] != "true" || got[1] != "1" {
		t.Errorf("report2 by nickname: %v", got)
	}
	out := s.Host(t, "reports", "list", "--reportee", "shownname")
	if got := countLine(out); got != "2 report(s)" {
		t.Errorf("reports against the account:\n%s", out)
	}
}
