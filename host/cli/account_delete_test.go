package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/operator"
)

func operatorToken(t *testing.T, ts *clitest.Server) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ts.DataDir, operator.TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

type guideCountsJSON struct {
	Gid         uint32 `json:"gid"`
	Hero        string `json:"hero"`
	Hidden      bool   `json:"hidden"`
	Up          uint32 `json:"up"`
	Down        uint32 `json:"down"`
	PlayersUp   uint32 `json:"players_up"`
	PlayersDown uint32 `json:"players_down"`
}

// guideCounts reads the guides' counts through the operator API.
func guideCounts(t *testing.T, ts *clitest.Server, token string) []guideCountsJSON {
	t.Helper()
	code, body := operatorCall(t, ts, http.MethodGet, "/operator/v1/guides", nil, token)
	if code != 200 {
		t.Fatalf("GET guides: %d %s", code, body)
	}
	var out []guideCountsJSON
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func guideCall(t *testing.T, ts *clitest.Server, s *client.Session, fields url.Values) (string, int64) {
	t.Helper()
	fields.Set("account", s.AccountID)
	fields.Set("cookie", s.Cookie)
	fields.Set("hosttime", "7")
	r, err := ts.Client.PostForm(context.Background(), "/client_requester.php", fields)
	if err != nil {
		t.Fatal(err)
	}
	arr, err := r.PHP()
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := arr.String("errors")
	n, _ := arr.Int("success")
	return msg, n
}

// TestDeleteAccount deletes an account with a sub-account through the
// operator API: it no longer logs in, its cookie is dead, its vote leaves
// the guide's counts (also after a restart), the live sessions gauge
// drops, and its login can be registered again, the new account logging
// in with its own password.
func TestDeleteAccount(t *testing.T) {
	ts := clitest.StartDemo(t, nil)
	ctx := context.Background()
	token := operatorToken(t, ts)
	ts.Host(t, "account", "create", "--login", "zed", "--password", "pw")
	ts.Host(t, "account", "create", "--login", "zed2", "--password", "pw", "--parent", "zed")
	s, err := ts.Client.Login(ctx, "zed", "pw")
	if err != nil {
		t.Fatal(err)
	}
	oldID := s.AccountID
	gs := guideCounts(t, ts, token)
	var g guideCountsJSON
	for _, c := range gs {
		if !c.Hidden {
			g = c
			break
		}
	}
	if g.Gid == 0 {
		t.Fatal("no visible demo guide")
	}
	gid := strconv.FormatUint(uint64(g.Gid), 10)
	if msg, ok := guideCall(t, ts, s, url.Values{"f": {"guide_vote"}, "gid": {gid}, "v": {"1"}}); ok != 1 {
		t.Fatalf("vote: %s", msg)
	}
	countsOf := func() guideCountsJSON {
		for _, c := range guideCounts(t, ts, token) {
			if c.Gid == g.Gid {
				return c
			}
		}
		t.Fatalf("guide %d gone", g.Gid)
		return guideCountsJSON{}
	}
	if c := countsOf(); c.PlayersUp != g.PlayersUp+1 || c.Up != g.Up+1 {
		t.Fatalf("counts after the vote: %+v, before %+v", c, g)
	}
	live := scrape(t, ts)["honmaster_sessions_live"]

	if code, _ := operatorCall(t, ts, http.MethodDelete, "/operator/v1/account?login=zed", nil, ""); code != http.StatusUnauthorized {
		t.Fatalf("delete without the token: %d, want 401", code)
	}
	code, body := operatorCall(t, ts, http.MethodDelete, "/operator/v1/account?login=zed", nil, token)
	if code != 200 {
		t.Fatalf("delete: %d %s", code, body)
	}
	var del struct {
		Accounts []struct {
			Login   string         `json:"login"`
			Records int            `json:"records"`
			Counts  map[string]int `json:"counts"`
		} `json:"accounts"`
	}
	if err := json.Unmarshal([]byte(body), &del); err != nil {
		t.Fatal(err)
	}
	if len(del.Accounts) != 2 || del.Accounts[0].Login != "zed2" || del.Accounts[1].Login != "zed" ||
		del.Accounts[1].Counts["x/guides.vote"] != 1 || del.Accounts[1].Counts["sessions"] != 1 {
		t.Fatalf("delete answered %s", body)
	}
	if code, _ := operatorCall(t, ts, http.MethodDelete, "/operator/v1/account?login=zed", nil, token); code != http.StatusNotFound {
		t.Errorf("deleting it again: %d, want 404", code)
	}

	for _, login := range []string{"zed", "zed2"} {
		if _, err := ts.Client.Login(ctx, login, "pw"); !errors.Is(err, client.ErrLogin) {
			t.Errorf("%s logs in after deletion: %v", login, err)
		}
	}
	if msg, _ := guideCall(t, ts, s, url.Values{"f": {"get_guide"}, "gid": {gid}, "hero": {g.Hero}}); msg != "invalid_cookie" {
		t.Errorf("the deleted account's cookie: %q, want invalid_cookie", msg)
	}
	if c := countsOf(); c.PlayersUp != g.PlayersUp || c.Up != g.Up {
		t.Errorf("counts after the deletion: %+v, before the vote %+v", c, g)
	}
	if got := scrape(t, ts)["honmaster_sessions_live"]; got != live-1 {
		t.Errorf("sessions_live %v after deleting an account with one session, was %v", got, live)
	}

	// The login is free again: a new account, a new id, its own password.
	if code, body := operatorCall(t, ts, http.MethodPost, "/operator/v1/account", url.Values{"login": {"zed"}, "password": {"pw2"}}, token); code != 200 {
		t.Fatalf("create zed again: %d %s", code, body)
	}
	s2, err := ts.Client.Login(ctx, "zed", "pw2")
	if err != nil {
		t.Fatalf("the new zed does not log in: %v", err)
	}
	if s2.AccountID == oldID {
		t.Errorf("the new account reuses id %s", oldID)
	}
	if _, err := ts.Client.Login(ctx, "zed", "pw"); !errors.Is(err, client.ErrLogin) {
		t.Errorf("the old password logs in the new zed: %v", err)
	}

	// After a restart the counts, rebuilt from the records, agree.
	if err := ts.Runtime.Stop(); err != nil {
		t.Fatal(err)
	}
	rt, err := cli.Start(ctx, ts.Config, slog.New(slog.NewTextHandler(io.Discard, nil)), true, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ts.Runtime = rt // the cleanup stops the new one
	ts.Client = client.New("http://" + rt.Addr.String())
	if c := countsOf(); c.PlayersUp != g.PlayersUp || c.Up != g.Up {
		t.Errorf("counts after a restart: %+v, before the vote %+v", c, g)
	}
	if _, err := ts.Client.Login(ctx, "zed", "pw2"); err != nil {
		t.Errorf("the new zed after a restart: %v", err)
	}
}

// TestSessionsLiveGauge: honmaster_sessions_live moves with logins and
// logouts.
func TestSessionsLiveGauge(t *testing.T) {
	ts := start(t, nil)
	ctx := context.Background()
	ts.Host(t, "account", "create", "--login", "liv", "--password", "pw")
	before := scrape(t, ts)["honmaster_sessions_live"]
	s1, err := ts.Client.Login(ctx, "liv", "pw")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Client.Login(ctx, "liv", "pw"); err != nil {
		t.Fatal(err)
	}
	if got := scrape(t, ts)["honmaster_sessions_live"]; got != before+2 {
		t.Errorf("after two logins: %v, want %v", got, before+2)
	}
	r, err := ts.Client.PostForm(ctx, "/client_requester.php?f=logout", url.Values{"cookie": {s1.Cookie}})
	if err != nil || r.Status != 200 {
		t.Fatalf("logout: %v %+v", err, r)
	}
	if got := scrape(t, ts)["honmaster_sessions_live"]; got != before+1 {
		t.Errorf("after a logout: %v, want %v", got, before+1)
	}
}

// TestDeleteAccountReports: the reports a deleted account filed go with
// it; a report filed against it stays its reporter's, in the queue, until
// it is dismissed: "reports show" says the player was deleted, a warning
// is refused in those words (not "no such account or record") and a
// dismissal takes the report out of the open queue.
func TestDeleteAccountReports(t *testing.T) {
	ts := start(t, nil)
	ctx := context.Background()
	token := operatorToken(t, ts)
	sess := map[string]*client.Session{}
	for _, l := range []string{"ann", "ben"} {
		ts.Host(t, "account", "create", "--login", l, "--password", "pw")
		s, err := ts.Client.Login(ctx, l, "pw")
		if err != nil {
			t.Fatal(err)
		}
		sess[l] = s
	}
	for _, r := range [][2]string{{"ann", "ben"}, {"ben", "ann"}} {
		s := sess[r[0]]
		resp, err := ts.Client.PostForm(ctx, "/master/report/report", url.Values{"reporter_id": {s.AccountID}, "cookie": {s.Cookie},
			"reportee_name": {r[1]}, "reason_type": {"5"}, "report_description": {"afk"}})
		if err != nil {
			t.Fatal(err)
		}
		if arr, err := resp.PHP(); err != nil {
			t.Fatal(err)
		} else if n, _ := arr.Int("report_success"); n != 1 {
			t.Fatalf("%s reports %s: %s", r[0], r[1], resp.Body)
		}
	}
	if out := ts.Host(t, "reports", "list", "--status", "any"); !strings.HasSuffix(out, "2 report(s)") {
		t.Fatalf("before:\n%s", out)
	}
	if code, body := operatorCall(t, ts, http.MethodDelete, "/operator/v1/account?login=ann", nil, token); code != 200 {
		t.Fatalf("delete: %d %s", code, body)
	}
	out := ts.Host(t, "reports", "list", "--status", "any")
	if !strings.HasSuffix(out, "1 report(s)") || !strings.Contains(out, sess["ben"].AccountID+"-1") {
		t.Errorf("after deleting ann, want only ben's report:\n%s", out)
	}
	id := sess["ben"].AccountID + "-1"
	if out := ts.Host(t, "reports", "show", id); !strings.Contains(out, "standing:   none: the player's account was deleted") {
		t.Errorf("show of a report against a deleted account:\n%s", out)
	}
	code, _, errOut := ts.Run("reports", "resolve", id, "--action", "warn")
	if code != 1 || !strings.Contains(errOut, `the reported player "ann"`) || !strings.Contains(errOut, "was deleted") ||
		strings.Contains(errOut, "no such account") {
		t.Errorf("warning a deleted account: exit %d, %q", code, errOut)
	}
	if out := ts.Host(t, "reports", "list"); !strings.HasSuffix(out, "1 report(s)") {
		t.Errorf("open queue after the refused warning:\n%s", out)
	}
	if out := ts.Host(t, "reports", "resolve", id, "--action", "dismiss"); !strings.Contains(out, "report "+id+" dismissed") {
		t.Errorf("dismissing a report against a deleted account: %q", out)
	}
	if out := ts.Host(t, "reports", "list"); !strings.HasSuffix(out, "0 report(s)") {
		t.Errorf("open queue after the dismissal:\n%s", out)
	}
	if out := ts.Host(t, "reports", "list", "--status", "dismissed"); !strings.Contains(out, id+" ") || !strings.HasSuffix(out, "1 report(s)") {
		t.Errorf("dismissed reports:\n%s", out)
	}
}

// TestDeleteAccountCommand: "account delete" refuses to run without --yes
// (nothing deleted), deletes the account and its sub-account through the
// running server's actors with --yes (listing both; neither logs in after),
// and a second run says no account has the login.
func TestDeleteAccountCommand(t *testing.T) {
	ts := clitest.StartDemo(t, nil)
	ctx := context.Background()
	ts.Host(t, "account", "create", "--login", "ava", "--password", "pw")
	ts.Host(t, "account", "create", "--login", "ava2", "--password", "pw", "--parent", "ava")

	code, _, errOut := ts.Run("account", "delete", "--login", "ava")
	if code != 2 || !strings.Contains(errOut, "add --yes to confirm") {
		t.Fatalf("without --yes: exit %d, %q", code, errOut)
	}
	if _, err := ts.Client.Login(ctx, "ava", "pw"); err != nil {
		t.Fatalf("refused deletion deleted something: %v", err)
	}

	out := ts.Host(t, "account", "delete", "--login", "ava", "--yes")
	lines := strings.Split(out, "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"ava2"`) || !strings.Contains(lines[1], `"ava"`) {
		t.Fatalf("delete printed %q; want the sub-account, then the account", out)
	}
	for _, login := range []string{"ava", "ava2"} {
		if _, err := ts.Client.Login(ctx, login, "pw"); !errors.Is(err, client.ErrLogin) {
			t.Errorf("%s logs in after deletion: %v", login, err)
		}
	}

	code, _, errOut = ts.Run("account", "delete", "--login", "ava", "--yes")
	if code == 0 || !strings.Contains(errOut, `no account has the login "ava"`) || strings.Contains(errOut, "storage") {
		t.Fatalf("second delete: exit %d, %q", code, errOut)
	}
}
