package console_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/console"
	"github.com/honmaster/masterserver/host/guides"
	"github.com/honmaster/masterserver/host/reports"
	bundled "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
)

// fileReport files a report by reporter against reportee through the
// reports area, as the game's report path does.
func (e *env) fileReport(t *testing.T, reporter, reportee string, reason reportsapi.Reason, text string) reports.ReportID {
	t.Helper()
	a, err := reports.New(reports.Deps{Sys: e.sys, Login: e.login, Decider: bundled.Plugin()})
	if err != nil {
		t.Fatal(err)
	}
	acct := func(login string) reports.Account {
		id, err := e.sys.DB().LoginID(login)
		if err != nil {
			t.Fatal(err)
		}
		x, err := e.sys.DB().Account(id)
		if err != nil {
			t.Fatal(err)
		}
		return reports.Account{ID: x.ID, Owner: x.SuperID, Nickname: x.Nickname}
	}
	out, err := a.Submit(context.Background(), acct(reporter), []reports.Draft{{Source: reports.SourceMaster,
		Reportee: acct(reportee), Reason: reason, Text: text, RawText: text}})
	if err != nil || len(out) != 1 || !out[0].Accepted() {
		t.Fatalf("report: %v %+v", err, out)
	}
	return out[0].Report.ID
}

// TestReportsPage: the queue with its filters, a report's detail, and a
// resolution with a suspension through reports.Resolve, which the
// reportee's next game login shows; CSRF is required and a report is
// resolved once.
func TestReportsPage(t *testing.T) {
	e := newEnv(t, console.Deps{})
	ctx := context.Background()
	for _, l := range []string{"Troll", "Saint"} {
		if _, err := e.acc.Create(ctx, accounts.Create{Login: l, Password: "pw"}); err != nil {
			t.Fatal(err)
		}
	}
	r1 := e.fileReport(t, "player", "Troll", reportsapi.ReasonChatAbuse, "flamed <b>all</b> game")
	r2 := e.fileReport(t, "player", "Saint", reportsapi.ReasonAFK, "went afk")
	c := client(t)
	e.signIn(t, c, "admin", "admin-pw")

	for _, tc := range []struct {
		query      string
		has, hasnt []string
	}{
		{"", []string{r1.String(), r2.String(), "2 report(s)"}, nil},
		{"?reason=chat_abuse", []string{r1.String()}, []string{r2.String()}},
		{"?reportee=sAi", []string{r2.String()}, []string{r1.String()}},
		{"?reporter=play&reason=afk", []string{r2.String()}, []string{r1.String()}},
		{"?reporter=nobody", []string{"no report matches"}, []string{r1.String()}},
		{"?status=resolved", []string{"0 report(s)"}, []string{r1.String()}},
	} {
		_, page := get(t, c, e.srv.URL+"/console/reports"+tc.query)
		for _, s := range tc.has {
			if !strings.Contains(page, ">"+s) {
				t.Errorf("queue%s lacks %q", tc.query, s)
			}
		}
		for _, s := range tc.hasnt {
			if strings.Contains(page, ">"+s+"<") {
				t.Errorf("queue%s shows %q", tc.query, s)
			}
		}
	}
	_, page := get(t, c, e.srv.URL+"/console/report?id="+r1.String())
	if !strings.Contains(page, "flamed &lt;b&gt;all&lt;/b&gt; game") || !strings.Contains(page, `id="resolve"`) {
		t.Fatalf("detail:\n%s", page)
	}
	if !strings.Contains(page, "<th>Match</th><td>not given</td>") {
		t.Errorf("a report without a match shows its match as:\n%s", page)
	}
	tok := csrfOf(t, page)
	resolve := func(form url.Values) string {
		form.Set("id", r1.String())
		_, page := post(t, c, e.srv.URL+"/console/report/resolve", form)
		return page
	}
	if status, _ := post(t, c, e.srv.URL+"/console/report/resolve", url.Values{"id": {r1.String()}, "action": {"suspend"}, "days": {"3"}}); status != http.StatusForbidden {
		t.Errorf("resolve without the form token: %d", status)
	}
	if page := resolve(url.Values{"csrf": {tok}, "action": {"suspend"}}); !strings.Contains(page, "suspend needs days 1..3650") || strings.Contains(page, "--") {
		t.Errorf("suspend without days:\n%s", page)
	}
	if page := resolve(url.Values{"csrf": {tok}, "action": {"warn"}, "days": {"two"}}); !strings.Contains(page, "days must be a whole number") {
		t.Errorf("warn for two days:\n%s", page)
	}
	if page := resolve(url.Values{"csrf": {tok}, "action": {"ban"}}); !strings.Contains(page, "action must be dismiss, warn or suspend") {
		t.Errorf("unknown action:\n%s", page)
	}
	page = resolve(url.Values{"csrf": {tok}, "action": {"suspend"}, "days": {"3"}, "note": {"second offence"}})
	if !strings.Contains(page, "is suspended until") || !strings.Contains(page, `id="resolution">suspend 3 day(s) by admin`) ||
		strings.Contains(page, `id="resolve"`) {
		t.Fatalf("after resolve:\n%s", page)
	}
	if rec := e.gameRecord(t, "Troll", "pw"); rec.SuspID != "1" {
		t.Errorf("offender's susp_id at next login = %q, want 1", rec.SuspID)
	}
	if page := resolve(url.Values{"csrf": {tok}, "action": {"dismiss"}}); !strings.Contains(page, "report already resolved") || strings.Contains(page, "reports:") {
		t.Errorf("second resolution:\n%s", page)
	}
	_, page = get(t, c, e.srv.URL+"/console/reports?status=suspended")
	if !strings.Contains(page, ">"+r1.String()+"<") || strings.Contains(page, ">"+r2.String()+"<") {
		t.Errorf("suspended filter:\n%s", page)
	}
	// The offender's account page names the report behind the suspension.
	_, page = get(t, c, e.srv.URL+"/console/account?login=Troll")
	if !strings.Contains(page, "(report "+r1.String()+", Chat Abuse: second offence)") {
		t.Errorf("account page standing:\n%s", page)
	}
	if _, page := get(t, c, e.srv.URL+"/console/report?id=99-1"); !strings.Contains(page, "no such report") {
		t.Errorf("unknown report:\n%s", page)
	}
}

// TestReportsPageDeletedReportee: a report whose reportee was deleted
// says so on its page, offers only a dismissal, refuses a warning in
// those words and leaves the open queue once dismissed. Before, every
// resolution failed with "no such account" and the page showed the
// deleted player in good standing.
func TestReportsPageDeletedReportee(t *testing.T) {
	e := newEnv(t, console.Deps{})
	ctx := context.Background()
	if _, err := e.acc.Create(ctx, accounts.Create{Login: "Troll", Password: "pw"}); err != nil {
		t.Fatal(err)
	}
	id := e.fileReport(t, "player", "Troll", reportsapi.ReasonChatAbuse, "flamed")
	if _, err := e.acc.Delete(ctx, "Troll"); err != nil {
		t.Fatal(err)
	}
	c := client(t)
	e.signIn(t, c, "admin", "admin-pw")
	_, page := get(t, c, e.srv.URL+"/console/report?id="+id.String())
	if !strings.Contains(page, `id="standing">none: the player&#39;s account was deleted`) || !strings.Contains(page, `id="reportee-deleted"`) ||
		strings.Contains(page, `<option value="warn">`) || !strings.Contains(page, `<option value="dismiss">`) {
		t.Fatalf("page of a report against a deleted player:\n%s", page)
	}
	tok := csrfOf(t, page)
	_, page = post(t, c, e.srv.URL+"/console/report/resolve", url.Values{"csrf": {tok}, "id": {id.String()}, "action": {"warn"}})
	if !strings.Contains(page, "the reported player &#34;Troll&#34; (account") || !strings.Contains(page, "was deleted, so there is no one to warn") ||
		strings.Contains(page, "no such account") || !strings.Contains(page, `id="report-status">open`) {
		t.Errorf("warning a deleted player:\n%s", page)
	}
	_, page = post(t, c, e.srv.URL+"/console/report/resolve", url.Values{"csrf": {tok}, "id": {id.String()}, "action": {"dismiss"}})
	if !strings.Contains(page, `id="report-status">dismissed`) || !strings.Contains(page, `id="resolution">dismiss by admin`) ||
		strings.Contains(page, `id="resolve"`) {
		t.Errorf("after the dismissal:\n%s", page)
	}
	if _, page := get(t, c, e.srv.URL+"/console/reports"); strings.Contains(page, ">"+id.String()+"<") {
		t.Errorf("the open queue still shows %s:\n%s", id, page)
	}
}

// upload posts a file as the guides page's import form does.
func upload(t *testing.T, c *http.Client, u, tok, field, name string, data []byte) string {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", tok)
	fw, _ := mw.CreateFormFile(field, name)
	fw.Write(data)
	mw.Close()
	resp, err := c.Post(u, mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestGuidesPage: import both formats through guides.Import, list a hero's
// guides with counts, hide and mark premium through guides.Moderate.
func TestGuidesPage(t *testing.T) {
	e := newEnv(t, console.Deps{})
	c := client(t)
	e.signIn(t, c, "admin", "admin-pw")
	_, page := get(t, c, e.srv.URL+"/console/guides")
	tok := csrfOf(t, page)
	if !strings.Contains(page, "no guides stored") {
		t.Fatalf("empty guides page:\n%s", page)
	}
	own, err := os.ReadFile("../guides/testdata/import_own.json")
	if err != nil {
		t.Fatal(err)
	}
	page = upload(t, c, e.srv.URL+"/console/guides/import", tok, "guides", "own.json", own)
	if !strings.Contains(page, "imported 3 guides: 3 added, 0 updated") || !strings.Contains(page, `id="guide-415077"`) {
		t.Fatalf("after import:\n%s", page)
	}
	// Counts: the imported 98 up, 2 down, rating 0.98.
	if !strings.Contains(page, "<td>98</td><td>2</td><td class=\"num\">98/2</td><td>0.98</td>") {
		t.Errorf("counts of guide 415077:\n%s", page)
	}
	archive, err := os.ReadFile("../guides/testdata/import_archive.json")
	if err != nil {
		t.Fatal(err)
	}
	if page := upload(t, c, e.srv.URL+"/console/guides/import", tok, "guides", "archive.json", archive); !strings.Contains(page, "added") {
		t.Errorf("archive import:\n%s", page)
	}
	// A file with one bad guide: the others are imported, the bad one named.
	crlf, err := os.ReadFile("../guides/testdata/import_archive_crlf.json")
	if err != nil {
		t.Fatal(err)
	}
	if page := upload(t, c, e.srv.URL+"/console/guides/import", tok, "guides", "crlf.json", crlf); !strings.Contains(page, "imported 2 guides: 2 added, 0 updated; refused 1: Hero_Parallax guide 2 (&#34;Coloured guide&#34;): txt_intro holds the control character U&#43;001B") {
		t.Errorf("import with a refused guide:\n%s", page)
	}
	// The notice names a few refused guides (it travels in a URL).
	many := `[{"gid": 9, "hero_cli_name": "Hero_A", "guide_name": "Fine", "author_name": "x", "datetime": "2021-05-09T15:18:47Z"}`
	for gid := 10; gid < 17; gid++ {
		many += fmt.Sprintf(`, {"gid": %d, "hero_cli_name": "Hero_A", "guide_name": "Bell %d", "author_name": "x", "datetime": "2021-05-09T15:18:47Z", "txt_intro": "\u0007"}`, gid, gid)
	}
	if page := upload(t, c, e.srv.URL+"/console/guides/import", tok, "guides", "many.json", []byte(many+"]")); !strings.Contains(page, "imported 1 guides: 1 added, 0 updated; refused 7: guide 2 (gid 10") ||
		!strings.Contains(page, "Bell 14") || strings.Contains(page, "Bell 15") || !strings.Contains(page, "and 2 more (honmaster guides import lists them all)") {
		t.Errorf("import with many refused guides:\n%s", page)
	}
	if page := upload(t, c, e.srv.URL+"/console/guides/import", tok, "guides", "bad.json", []byte(`[{"gid": 1}]`)); !strings.Contains(page, "bad.json was not imported") || strings.Contains(page, "guides:") {
		t.Errorf("bad import:\n%s", page)
	}
	_, page = post(t, c, e.srv.URL+"/console/guides/moderate", url.Values{"csrf": {tok}, "gid": {"415077"}, "hero": {"Hero_Parallax"}, "hidden": {"1"}})
	if !strings.Contains(page, "hidden true") {
		t.Errorf("hide:\n%s", page)
	}
	_, page = post(t, c, e.srv.URL+"/console/guides/moderate", url.Values{"csrf": {tok}, "gid": {"415077"}, "hero": {"Hero_Parallax"}, "premium": {"1"}})
	g, err := guides.LoadGuide(e.sys.DB(), 415077)
	if err != nil || !g.Hidden || !g.Premium {
		t.Errorf("guide after hide and premium: %+v %v", g, err)
	}
	if !strings.Contains(page, `class="unhide"`) || !strings.Contains(page, `class="unpremium"`) {
		t.Errorf("buttons after hide and premium:\n%s", page)
	}
	_, page = post(t, c, e.srv.URL+"/console/guides/moderate", url.Values{"csrf": {tok}, "gid": {"99"}, "hidden": {"0"}})
	if !strings.Contains(page, "no guide with gid 99") {
		t.Errorf("unknown gid:\n%s", page)
	}
	if status, _ := post(t, c, e.srv.URL+"/console/guides/moderate", url.Values{"gid": {"415077"}, "hidden": {"0"}}); status != http.StatusForbidden {
		t.Errorf("moderate without the form token: %d", status)
	}
}
