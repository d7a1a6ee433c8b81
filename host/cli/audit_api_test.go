package cli_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/operator"
)

// auditServer is a server (with the demo operator) whose log the test
// reads, its operator token, and the lines of its audit trail.
type auditServer struct {
	rt    *cli.Runtime
	data  string
	token string
	logs  *syncBuffer
}

func startAuditServer(t *testing.T, change ...func(*config.Config)) *auditServer {
	t.Helper()
	data := t.TempDir()
	cfg := config.Default()
	cfg.Storage.DataDir = data
	cfg.Server.Listen, cfg.Operator.Listen = "127.0.0.1:0", "127.0.0.1:0"
	for _, f := range change {
		f(cfg)
	}
	logs := new(syncBuffer)
	rt, err := cli.Start(context.Background(), cfg, slog.New(slog.NewTextHandler(logs, nil)), true, new(strings.Builder))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Stop() })
	token, err := os.ReadFile(filepath.Join(data, operator.TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	return &auditServer{rt: rt, data: data, token: strings.TrimSpace(string(token)), logs: logs}
}

// op is the operator listener's base URL.
func (s *auditServer) op() string { return "http://" + s.rt.OperatorAddr.String() }

// call sends an operator API request with body of type ctype ("" none).
func (s *auditServer) call(t *testing.T, method, path, ctype, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.op()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// audited is the one line of the trail that holds every one of want.
func (s *auditServer) audited(t *testing.T, what string, want ...string) string {
	t.Helper()
	var found []string
	for _, l := range strings.Split(s.logs.String(), "\n") {
		ok := strings.Contains(l, `msg="operator action" log=audit`)
		for _, w := range want {
			ok = ok && strings.Contains(l, w)
		}
		if ok {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		t.Errorf("%s: %d lines of the trail with %q, want 1; the trail:\n%s", what, len(found), want, s.trail())
		return ""
	}
	return found[0]
}

func (s *auditServer) trail() string {
	var out []string
	for _, l := range strings.Split(s.logs.String(), "\n") {
		if strings.Contains(l, "log=audit") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

const formType = "application/x-www-form-urlencoded"

// TestAuditAPIJSONAndStrictForms: the operator API's line of the audit
// trail names the account and the change of a JSON-bodied call too
// (POST /api/matches/game-host logged neither while it made an account a
// game host), and the API refuses what it would misread: a field given
// twice (gold=5&gold=999999 granted 5 and was audited as 5,999999), a
// field it does not take (gld=500 answered 200 having granted nothing),
// a JSON name it does not take or a case variant of one, fields in the
// query of a JSON route, a body of another type than the route's. Each
// refusal is 400 with a sentence naming the field, changes nothing, and
// is in the trail as a failure.
func TestAuditAPIJSONAndStrictForms(t *testing.T) {
	s := startAuditServer(t)
	for _, l := range []string{"victim", "other"} {
		if code, body := s.call(t, "POST", operator.PathAccount, formType, url.Values{"login": {l}, "password": {"pw"}}.Encode()); code != 200 {
			t.Fatalf("create %s: %d %s", l, code, body)
		}
	}

	// A JSON-bodied call names its account and its change.
	if code, body := s.call(t, "POST", "/api/matches/game-host", "application/json", `{"login":"victim","game_host":true}`); code != 200 {
		t.Fatalf("game-host: %d %s", code, body)
	}
	s.audited(t, "game-host", `action="POST /api/matches/game-host" account=victim change.game_host=true outcome=ok`)

	gold := func() string {
		t.Helper()
		code, body := s.call(t, "GET", operator.PathAccount+"?login=victim", "", "")
		if code != 200 {
			t.Fatalf("account: %d %s", code, body)
		}
		_, after, _ := strings.Cut(body, `"gold":`)
		n, _, _ := strings.Cut(after, ",")
		return n
	}
	for _, tc := range []struct {
		name, method, path, ctype, body string
		want                            string // in the answer
		trail                           []string
	}{
		{"repeated field", "POST", operator.PathGrant, formType, "login=victim&gold=5&gold=999999",
			`the field \"gold\" is given 2 times; give it once`, []string{"account=victim", "change.gold=5,999999", `outcome="failed: the field \"gold\" is given 2 times`}},
		{"field in the query and the body", "POST", operator.PathGrant + "?gold=999999", formType, "login=victim&gold=6",
			`the field \"gold\" is given 2 times`, []string{"account=victim", "change.gold=6,999999", `outcome="failed: the field \"gold\"`}},
		{"misspelled field", "POST", operator.PathGrant, formType, "login=victim&gld=500",
			`unknown field \"gld\" (the fields of this route are login, gold, silver, tickets, upgrade)`,
			[]string{"account=victim", "change.gld=500", `outcome="failed: unknown field \"gld\"`}},
		{"JSON to a form route", "POST", operator.PathGrant, "application/json", `{"login":"victim","gold":500}`,
			"this route takes a form", []string{`action="POST /operator/v1/grant" outcome="failed: this route takes a form`}},
		{"unknown JSON name", "POST", "/api/matches/game-host", "application/json", `{"login":"other","game_host":true,"gmae_host":false}`,
			`unknown field \"gmae_host\" (the fields of this route are login, game_host)`,
			[]string{"account=other", "change.game_host=true", `outcome="failed: unknown field \"gmae_host\"`}},
		{"JSON name in another case", "POST", "/api/matches/game-host", "application/json", `{"login":"victim","LOGIN":"other","game_host":false}`,
			`unknown field \"LOGIN\"`, []string{"account=victim", `outcome="failed: unknown field \"LOGIN\"`}},
		{"repeated JSON name", "POST", "/api/matches/game-host", "application/json", `{"login":"victim","login":"other","game_host":false}`,
			`the field \"login\" is given twice; give it once`, []string{"account=victim", `outcome="failed: the field \"login\" is given twice`}},
		{"query of a JSON route", "POST", "/api/matches/game-host?login=victim", "application/json", `{"login":"other","game_host":true}`,
			`unknown field \"login\" in the query`, []string{"account=other", `outcome="failed: unknown field \"login\" in the query`}},
		{"not a JSON object", "POST", "/api/matches/game-host", "application/json", `["victim"]`,
			"must be one JSON object of the fields login, game_host", []string{`action="POST /api/matches/game-host" outcome="failed: `}},
		{"body of a deletion", "DELETE", operator.PathAccount, formType, "login=other",
			"this route takes its fields in the query", []string{`action="DELETE /operator/v1/account" outcome="failed: this route takes its fields in the query`}},
		{"unknown field of a deletion", "DELETE", operator.PathAccount + "?login=other&yes=1", "", "",
			`unknown field \"yes\" (the fields of this route are login)`, []string{`action="DELETE /operator/v1/account" account=other change.yes=1 outcome="failed: unknown field`}},
	} {
		code, body := s.call(t, tc.method, tc.path, tc.ctype, tc.body)
		if code != http.StatusBadRequest || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want 400 with %q", tc.name, code, body, tc.want)
		}
		s.audited(t, tc.name, tc.trail...)
	}
	if g := gold(); g != "0" {
		t.Errorf("the refused grants changed the gold: %s", g)
	}
	if code, body := s.call(t, "GET", operator.PathAccount+"?login=other", "", ""); code != 200 {
		t.Errorf("the refused deletion deleted: %d %s", code, body)
	}
	// A read is held to its fields too.
	if code, body := s.call(t, "GET", "/api/matches/totals?account_id=1&x=1", "", ""); code != http.StatusBadRequest ||
		!strings.Contains(body, `unknown field \"x\" (the fields of this route are account_id)`) {
		t.Errorf("a GET with an unknown field: %d %s", code, body)
	}
	// What the API takes still works: an upgrade twice is a list.
	if code, body := s.call(t, "POST", operator.PathGrant, formType, "login=victim&gold=5&upgrade=aa.X.1&upgrade=aa.Y.2"); code != 200 ||
		!strings.Contains(body, `"gold":5`) || !strings.Contains(body, `"aa.X.1","aa.Y.2"`) {
		t.Errorf("grant with two upgrades: %d %s", code, body)
	}
	s.audited(t, "grant", "account=victim change.gold=5 change.upgrade=aa.X.1,aa.Y.2 outcome=ok")
}

// TestConsoleRefusesRepeatedFields: a console form that gives a field
// twice is refused before its handler runs, the console's own (a grant)
// and an area's (the reports area's suspension on the account page), with
// a sentence, nothing changed, and a failure in the trail.
func TestConsoleRefusesRepeatedFields(t *testing.T) {
	s := startAuditServer(t)
	if code, body := s.call(t, "POST", operator.PathAccount, formType, url.Values{"login": {"victim"}, "password": {"pw"}}.Encode()); code != 200 {
		t.Fatalf("create: %d %s", code, body)
	}
	c := signedInConsole(t, s.op(), "demo_admin", "demo-admin-pass")
	csrf := formToken(t, c, s.op()+"/console/account?login=victim")
	post := func(path string, form url.Values) string {
		t.Helper()
		resp, err := c.PostForm(s.op()+path, form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	page := post("/console/account/grant", url.Values{"csrf": {csrf}, "login": {"victim"}, "gold": {"5", "999999"}})
	if !strings.Contains(page, "the field &#34;gold&#34; was given 2 times") {
		t.Errorf("grant with gold twice: no refusal on the page:\n%s", page)
	}
	s.audited(t, "console grant", "action=account/grant account=victim", `outcome="failed: the field \"gold\" was given 2 times`)
	page = post("/console/account/suspend", url.Values{"csrf": {csrf}, "login": {"victim"}, "suspend": {"1"}, "days": {"1", "3650"}, "reason": {"afk"}})
	if !strings.Contains(page, "the field &#34;days&#34; was given 2 times") || strings.Contains(page, "account suspended until") {
		t.Errorf("suspension with days twice: no refusal on the page:\n%s", page)
	}
	s.audited(t, "console suspension", "action=account/suspend account=victim", `outcome="failed: the field \"days\" was given 2 times`)
	if code, body := s.call(t, "GET", operator.PathAccount+"?login=victim", "", ""); code != 200 || !strings.Contains(body, `"gold":0`) {
		t.Errorf("after the refused grant: %d %s", code, body)
	}
}

// TestAPIAreaBadRequestIs400: an area route's refusal of what it was sent
// (area.ErrBadRequest: a JSON body without its value, a query that is not
// a number) is the caller's mistake, 400, not the server's 500.
func TestAPIAreaBadRequestIs400(t *testing.T) {
	s := startAuditServer(t)
	for _, tc := range []struct{ method, path, ctype, body, want string }{
		{"POST", "/api/matches/game-host", "application/json", `{"login":"demo_admin"}`, "want a JSON body"},
		{"POST", "/api/matches/game-host", "application/json", `{"login":"demo_admin","game_host":"yes"}`, "want a JSON body"},
		{"GET", "/api/matches/totals?account_id=abc", "", "", "want ?account_id=N"},
	} {
		if code, body := s.call(t, tc.method, tc.path, tc.ctype, tc.body); code != http.StatusBadRequest || !strings.Contains(body, tc.want) {
			t.Errorf("%s %s %s: %d %s, want 400 with %q", tc.method, tc.path, tc.body, code, body, tc.want)
		}
	}
}

// TestTextNotUTF8Refused: a field that is not UTF-8 text is refused with a
// sentence naming it before anything is stored, on the operator API (a
// form's field, a JSON body) and in the areas' console forms (a
// suspension's note); nothing shows the storage's internals (`encode
// "a/": string field contains invalid UTF-8`).
func TestTextNotUTF8Refused(t *testing.T) {
	s := startAuditServer(t)
	if code, body := s.call(t, "POST", operator.PathAccount, formType, url.Values{"login": {"victim"}, "password": {"pw"}}.Encode()); code != 200 {
		t.Fatalf("create: %d %s", code, body)
	}
	for _, tc := range []struct{ name, method, path, ctype, body, want string }{
		{"upgrade", "POST", operator.PathGrant, formType, "login=victim&upgrade=aa.X%FF.1", `the field \"upgrade\" is not valid UTF-8 text`},
		{"e-mail", "POST", operator.PathAccount, formType, "login=utf&password=pw&email=a%FF@example.com", `the field \"email\" is not valid UTF-8 text`},
		{"field name", "POST", operator.PathGrant, formType, "login=victim&g%FFld=5", `a field's name (\"g\\xffld\") is not valid UTF-8 text`},
		{"JSON body", "POST", "/api/matches/game-host", "application/json", "{\"login\":\"victim\xff\",\"game_host\":true}", "the request's body is not valid UTF-8 text"},
	} {
		code, body := s.call(t, tc.method, tc.path, tc.ctype, tc.body)
		if code != http.StatusBadRequest || !strings.Contains(body, tc.want) || strings.Contains(body, "encode") {
			t.Errorf("%s: %d %s, want 400 with %q", tc.name, code, body, tc.want)
		}
	}
	if code, body := s.call(t, "GET", operator.PathAccount+"?login=victim", "", ""); code != 200 || !strings.Contains(body, `"upgrades":[]`) {
		t.Errorf("after the refused grant: %d %s", code, body)
	}
	if code, _ := s.call(t, "GET", operator.PathAccount+"?login=utf", "", ""); code != http.StatusNotFound {
		t.Errorf("the refused account was created: %d", code)
	}

	c := signedInConsole(t, s.op(), "demo_admin", "demo-admin-pass")
	csrf := formToken(t, c, s.op()+"/console/account?login=victim")
	resp, err := c.PostForm(s.op()+"/console/account/suspend", url.Values{"csrf": {csrf}, "login": {"victim"}, "suspend": {"1"},
		"days": {"2"}, "reason": {"afk"}, "note": {"left\xff"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if page := string(b); !strings.Contains(page, `id="error">the field &#34;note&#34; is not valid UTF-8 text; nothing was changed</p>`) ||
		strings.Contains(page, "account suspended until") {
		t.Errorf("suspension with a note not UTF-8: no refusal on the page:\n%s", page)
	}
}

// TestOperatorTokenLimitPerClientBehindProxy: behind a trusted proxy
// (server.trust_forwarded_for), the operator API's limit on token
// failures counts each client by the address X-Forwarded-For names, as
// the console and the game listener do: one guesser spends its own
// bucket, and the operators behind the same proxy keep theirs. Before,
// it counted the proxy's address, so eleven wrong tokens from anyone
// answered every operator 429 for minutes. The audit trail names the
// client too.
func TestOperatorTokenLimitPerClientBehindProxy(t *testing.T) {
	s := startAuditServer(t, func(c *config.Config) { c.Server.TrustForwardedFor = true })
	send := func(from, token string) int {
		t.Helper()
		req, err := http.NewRequest("POST", s.op()+operator.PathAccount, strings.NewReader(url.Values{"login": {"p" + strings.ReplaceAll(from, ".", "")}, "password": {"pw"}}.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", formType)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-Forwarded-For", from)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range 11 {
		want := http.StatusUnauthorized
		if i == 10 {
			want = http.StatusTooManyRequests
		}
		if code := send("203.0.113.5", "wrong"); code != want {
			t.Fatalf("wrong token %d from the guesser: %d, want %d", i+1, code, want)
		}
	}
	if code := send("203.0.113.9", s.token); code != http.StatusOK {
		t.Fatalf("the right token from another client behind the proxy: %d, want 200", code)
	}
	s.audited(t, "the other client's change", "account=p20301139", "addr=203.0.113.9", "outcome=ok")
	if code := send("203.0.113.5", s.token); code != http.StatusTooManyRequests {
		t.Fatalf("the right token from the throttled guesser: %d, want 429", code)
	}
}
