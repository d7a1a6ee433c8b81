package console_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"html/template"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/area"
	_ "github.com/honmaster/masterserver/host/cloud" // an area without a plugin: its page and the account page's row
	"github.com/honmaster/masterserver/host/console"
	"github.com/honmaster/masterserver/host/console/consolepage"
	_ "github.com/honmaster/masterserver/host/guides" // an area with console pages
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/metrics"
	_ "github.com/honmaster/masterserver/host/plinko" // an area with console pages
	"github.com/honmaster/masterserver/host/reports"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

type env struct {
	srv     *httptest.Server
	sys     *actors.System
	acc     *accounts.Service
	metrics *metrics.Metrics
	console *console.Console
	login   *login.Service
}

// gameLogin logs in as the game client does (pre_auth, srpAuth) and returns
// the session cookie.
func (e *env) gameLogin(t *testing.T, name, password string) string {
	t.Helper()
	return e.gameRecord(t, name, password).Cookie
}

// gameRecord logs in as the game client does and returns the session record.
func (e *env) gameRecord(t *testing.T, name, password string) *login.SessionRecord {
	t.Helper()
	ctx := context.Background()
	cl, err := srp.DefaultGroup().NewClient(name, password, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pre, err := e.login.PreAuth(ctx, name, cl.AHex(), "192.0.2.1", "")
	if err != nil {
		t.Fatal(err)
	}
	m1, err := cl.Proof(pre.Salt, pre.Salt2, pre.B)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := e.login.SRPAuth(ctx, name, m1, "192.0.2.1", "")
	if err != nil {
		t.Fatalf("game login %s: %v", name, err)
	}
	return rec
}

func newEnv(t *testing.T, d console.Deps) *env {
	t.Helper()
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	sys := actors.New(db, actors.Options{})
	t.Cleanup(func() { sys.Shutdown(); db.Close() })
	g := srp.DefaultGroup()
	acc := &accounts.Service{Group: g, Sys: sys}
	d.Sys, d.Group, d.Accounts, d.Metrics = sys, g, acc, metrics.New()
	d.Login = login.New(g, sys, login.Settings{Secret: []byte("test secret")}, nil, nil)
	d.Login.SetSessionHook(reports.SessionHook)
	c, err := console.New(d)
	if err != nil {
		t.Fatal(err)
	}
	// Every area this test binary imports adds its pages, as a server
	// does: started on the console's actors with its bundled plugin in
	// process.
	for _, m := range area.Modules() {
		env := area.Env{Sys: sys, Login: d.Login, Config: config.Default(), Log: slog.New(slog.DiscardHandler), Metrics: d.Metrics.Registry}
		if m.Bundled != nil {
			env.Plugin = m.Bundled()
		}
		live, err := m.Start(env)
		if err != nil {
			t.Fatalf("area %s: %v", m.Area, err)
		}
		if err := c.AddArea(live); err != nil {
			t.Fatalf("area %s: %v", m.Area, err)
		}
	}
	mux := http.NewServeMux()
	c.Mount(mux.Handle)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	for _, l := range []string{"admin", "player"} {
		if _, err := acc.Create(ctx, accounts.Create{Login: l, Password: l + "-pw"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := console.SetOperator(ctx, sys, "admin", true); err != nil {
		t.Fatal(err)
	}
	return &env{srv: srv, sys: sys, acc: acc, metrics: d.Metrics, console: c, login: d.Login}
}

func client(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 30 * time.Second}
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func post(t *testing.T, c *http.Client, u string, form url.Values) (int, string) {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfRe.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no csrf field in page:\n%s", page)
	}
	return m[1]
}

// signIn signs c in and returns the dashboard's page and status.
func (e *env) signIn(t *testing.T, c *http.Client, login, password string) (int, string) {
	t.Helper()
	_, page := get(t, c, e.srv.URL+"/console/signin")
	return post(t, c, e.srv.URL+"/console/signin", url.Values{"csrf": {csrfOf(t, page)}, "login": {login}, "password": {password}})
}

// adminAt signs a new client in as admin and opens path: the client and
// the page's CSRF token.
func (e *env) adminAt(t *testing.T, path string) (*http.Client, string) {
	t.Helper()
	c := client(t)
	if status, _ := e.signIn(t, c, "admin", "admin-pw"); status != http.StatusOK {
		t.Fatal("sign-in failed")
	}
	_, page := get(t, c, e.srv.URL+path)
	return c, csrfOf(t, page)
}

func TestSignIn(t *testing.T) {
	e := newEnv(t, console.Deps{})
	tests := []struct {
		name, login, password string
		want                  int
	}{
		{"operator", "admin", "admin-pw", http.StatusOK},
		{"wrong password", "admin", "nope", http.StatusUnauthorized},
		{"not an operator", "player", "player-pw", http.StatusUnauthorized},
		{"no such account", "ghost", "x", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := client(t)
			status, page := e.signIn(t, c, tt.login, tt.password)
			if status != tt.want {
				t.Fatalf("status %d, want %d:\n%s", status, tt.want, page)
			}
			status, page = get(t, c, e.srv.URL+"/console/")
			signedIn := strings.Contains(page, "Players online")
			if signedIn != (tt.want == http.StatusOK) {
				t.Fatalf("dashboard reachable = %v after sign-in status %d (%d)", signedIn, tt.want, status)
			}
		})
	}
}

func TestCookieFlags(t *testing.T) {
	e := newEnv(t, console.Deps{SecureCookies: true})
	resp, err := http.Get(e.srv.URL + "/console/signin")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cs := resp.Cookies()
	if len(cs) == 0 {
		t.Fatal("no cookie set")
	}
	for _, ck := range cs {
		if !ck.HttpOnly || !ck.Secure || ck.SameSite != http.SameSiteStrictMode {
			t.Errorf("cookie %s: HttpOnly %v Secure %v SameSite %v", ck.Name, ck.HttpOnly, ck.Secure, ck.SameSite)
		}
	}
}

func TestCSRF(t *testing.T) {
	e := newEnv(t, console.Deps{})
	c := client(t)
	if status, _ := e.signIn(t, c, "admin", "admin-pw"); status != http.StatusOK {
		t.Fatalf("sign-in: %d", status)
	}
	_, page := get(t, c, e.srv.URL+"/console/account?login=player")
	token := csrfOf(t, page)
	tests := []struct {
		name  string
		token string
		want  int
	}{
		{"no token", "", http.StatusForbidden},
		{"wrong token", strings.Repeat("0", 64), http.StatusForbidden},
		{"session token", token, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form := url.Values{"login": {"player"}, "tickets": {"10"}}
			if tt.token != "" {
				form.Set("csrf", tt.token)
			}
			before, _ := e.sys.DB().LoginID("player")
			a0, _ := e.sys.Account(context.Background(), before)
			status, _ := post(t, c, e.srv.URL+"/console/account/grant", form)
			if status != tt.want {
				t.Fatalf("status %d, want %d", status, tt.want)
			}
			a1, _ := e.sys.Account(context.Background(), before)
			if granted := a1.Tickets - a0.Tickets; (granted == 10) != (tt.want == http.StatusOK) {
				t.Fatalf("tickets changed by %d with status %d", granted, status)
			}
		})
	}
	// The sign-in form refuses a POST without its own token too.
	status, _ := post(t, client(t), e.srv.URL+"/console/signin", url.Values{"login": {"admin"}, "password": {"admin-pw"}})
	if status != http.StatusForbidden {
		t.Fatalf("sign-in without token: %d, want 403", status)
	}
}

func TestSignInLimit(t *testing.T) {
	e := newEnv(t, console.Deps{SignInPerLogin: limit.Rate{Burst: 3, Every: time.Hour}, SignInPerAddress: limit.Rate{Burst: 100, Every: time.Hour}})
	c := client(t)
	for i := 0; i < 3; i++ {
		if status, _ := e.signIn(t, c, "admin", "wrong"); status != http.StatusUnauthorized {
			t.Fatalf("try %d: %d, want 401", i, status)
		}
	}
	// The right password is refused too while the login is limited.
	status, page := e.signIn(t, c, "admin", "admin-pw")
	if status != http.StatusTooManyRequests || !strings.Contains(page, "too many failed sign-ins") {
		t.Fatalf("after the limit: %d, want 429:\n%s", status, page)
	}
	// Another login from the same address is not limited by admin's failures.
	if status, _ := e.signIn(t, client(t), "player", "wrong"); status != http.StatusUnauthorized {
		t.Fatalf("other login: %d, want 401", status)
	}
}

func TestSignInLimitPerAddress(t *testing.T) {
	e := newEnv(t, console.Deps{SignInPerAddress: limit.Rate{Burst: 2, Every: time.Hour}})
	c := client(t)
	for _, l := range []string{"a1", "a2"} {
		if status, _ := e.signIn(t, c, l, "x"); status != http.StatusUnauthorized {
			t.Fatalf("%s: %d", l, status)
		}
	}
	if status, _ := e.signIn(t, c, "admin", "admin-pw"); status != http.StatusTooManyRequests {
		t.Fatalf("after the address limit: %d, want 429", status)
	}
}

func TestAccountActions(t *testing.T) {
	e := newEnv(t, console.Deps{})
	c := client(t)
	if status, _ := e.signIn(t, c, "admin", "admin-pw"); status != http.StatusOK {
		t.Fatal("sign-in failed")
	}
	_, page := get(t, c, e.srv.URL+"/console/accounts?q=PLAY")
	if !strings.Contains(page, `login=player"`) || strings.Contains(page, `login=admin"`) {
		t.Fatalf("search for PLAY:\n%s", page)
	}
	_, page = get(t, c, e.srv.URL+"/console/account?login=player")
	tok := csrfOf(t, page)
	acct := func() *storage.Account {
		id, _ := e.sys.DB().LoginID("player")
		a, err := e.sys.Account(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	_, page = post(t, c, e.srv.URL+"/console/account/grant", url.Values{"csrf": {tok}, "login": {"player"}, "gold": {"5"}, "upgrades": {"aa.Hero_X.Alt1"}})
	if a := acct(); a.Gold != 5 || len(a.Upgrades) != 1 || !strings.Contains(page, "granted") {
		t.Fatalf("grant: gold %d upgrades %v", a.Gold, a.Upgrades)
	}
	_, page = post(t, c, e.srv.URL+"/console/account/grant", url.Values{"csrf": {tok}, "login": {"player"}, "gold": {"-50"}})
	if a := acct(); a.Gold != 5 || !strings.Contains(page, "grant refused") || strings.Contains(page, "accounts:") {
		t.Fatalf("negative grant: gold %d:\n%s", a.Gold, page)
	}
	// Suspend: a timed suspension in the moderation record, as a report's.
	_, page = post(t, c, e.srv.URL+"/console/account/suspend", url.Values{"csrf": {tok}, "login": {"player"}, "suspend": {"1"},
		"days": {"0"}, "reason": {"afk"}})
	if !strings.Contains(page, "a suspension needs 1..3650 days") || strings.Contains(page, "reports:") {
		t.Fatalf("suspend for 0 days:\n%s", page)
	}
	_, page = post(t, c, e.srv.URL+"/console/account/suspend", url.Values{"csrf": {tok}, "login": {"player"}, "suspend": {"1"},
		"days": {"2"}, "reason": {"afk"}, "note": {"left 3 games"}})
	if !strings.Contains(page, "account suspended until") || !strings.Contains(page, "<th>susp_id</th><td>1</td>") ||
		!strings.Contains(page, "(set by an operator, Refusal to Participate / Avoiding AFK: left 3 games)") {
		t.Fatalf("record does not show the suspension:\n%s", page)
	}
	if a := acct(); a.SuspID != 0 {
		t.Fatalf("the account's own susp_id was set: %d", a.SuspID)
	}
	if m, _ := reports.ModerationOf(e.sys.DB(), acct().ID); !m.Suspended(time.Now()) {
		t.Fatal("not suspended in the moderation record")
	}
	if rec := e.gameRecord(t, "player", "player-pw"); rec.SuspID != "1" {
		t.Fatalf("susp_id at the next game login = %q, want 1", rec.SuspID)
	}
	_, page = post(t, c, e.srv.URL+"/console/account/suspend", url.Values{"csrf": {tok}, "login": {"player"}, "suspend": {"0"}})
	if !strings.Contains(page, "suspension lifted") || !strings.Contains(page, "<th>susp_id</th><td>0</td>") {
		t.Fatalf("after unsuspend:\n%s", page)
	}
	if m, _ := reports.ModerationOf(e.sys.DB(), acct().ID); m.Suspended(time.Now()) {
		t.Fatal("still suspended")
	}
	if rec := e.gameRecord(t, "player", "player-pw"); rec.SuspID != "0" {
		t.Fatalf("susp_id after unsuspend = %q, want 0", rec.SuspID)
	}
	post(t, c, e.srv.URL+"/console/account/subaccount", url.Values{"csrf": {tok}, "login": {"player"}, "sub_login": {"player2"}, "password": {"pw"}})
	if id, err := e.sys.DB().LoginID("player2"); err != nil {
		t.Fatal(err)
	} else if a, _ := e.sys.Account(context.Background(), id); a.SuperID != acct().ID {
		t.Fatalf("sub-account super %d", a.SuperID)
	}
	// Password reset: the operator's own, then sign in with the new one. The
	// account's game session ends; the game login takes the new password.
	cookie := e.gameLogin(t, "admin", "admin-pw")
	if _, err := e.login.Authenticate(cookie); err != nil {
		t.Fatalf("game session before reset: %v", err)
	}
	_, page = post(t, c, e.srv.URL+"/console/account/password", url.Values{"csrf": {tok}, "login": {"admin"}, "password": {"new-pw"}})
	if !strings.Contains(page, "password reset; 1 game sessions ended") {
		t.Fatalf("reset notice:\n%s", page)
	}
	if _, err := e.login.Authenticate(cookie); err == nil {
		t.Fatal("game session survived the password reset")
	}
	e.gameLogin(t, "admin", "new-pw")
	if status, _ := e.signIn(t, client(t), "admin", "admin-pw"); status != http.StatusUnauthorized {
		t.Fatalf("old password still works: %d", status)
	}
	if status, _ := e.signIn(t, client(t), "admin", "new-pw"); status != http.StatusOK {
		t.Fatalf("new password refused: %d", status)
	}
}

func TestSignedOutRedirects(t *testing.T) {
	e := newEnv(t, console.Deps{})
	c := client(t)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, p := range []string{"/console/", "/console/accounts", "/console/plinko", "/console/cloud", "/console/reports", "/console/report?id=1-1", "/console/guides"} {
		resp, err := c.Get(e.srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/console/signin" {
			t.Errorf("%s: %d %s", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	for _, p := range []string{"/console/account/grant", "/console/account/suspend", "/console/report/resolve", "/console/guides/moderate", "/console/guides/import"} {
		if status, _ := post(t, c, e.srv.URL+p, url.Values{"login": {"player"}, "tickets": {"1"}, "id": {"1-1"}, "gid": {"1"}}); status != http.StatusForbidden {
			t.Errorf("signed-out POST %s: %d", p, status)
		}
	}
}

func TestPlinkoImportAndChart(t *testing.T) {
	e := newEnv(t, console.Deps{})
	c := client(t)
	if status, _ := e.signIn(t, c, "admin", "admin-pw"); status != http.StatusOK {
		t.Fatal("sign-in failed")
	}
	_, page := get(t, c, e.srv.URL+"/console/plinko")
	if !strings.Contains(page, `id="no-catalog"`) {
		t.Fatalf("no catalog yet, page says otherwise:\n%s", page)
	}
	tok := csrfOf(t, page)
	upload := func(body string) string {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("csrf", tok)
		fw, _ := mw.CreateFormFile("catalog", "catalog.json")
		io.WriteString(fw, body)
		mw.Close()
		resp, err := c.Post(e.srv.URL+"/console/plinko/import", mw.FormDataContentType(), &buf)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	page = upload(`{"format": 1, "chests": [{"tier": 9}]}`)
	if !strings.Contains(page, `id="error"`) || strings.Contains(page, "plinko:") {
		t.Fatalf("bad catalog: want an error without package prefix:\n%s", page)
	}
	catalog, err := os.ReadFile("../plinko/testdata/catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	page = upload(string(catalog))
	if !strings.Contains(page, "catalog imported") || !strings.Contains(page, "Hero_Stormherald.Alt1") {
		t.Fatalf("import:\n%s", page)
	}
	// The chart: configured odds against no drops yet (the counts are
	// the area's, see host/plinko's TestPlinkoPageChart).
	_, page = get(t, c, e.srv.URL+"/console/plinko")
	if n := strings.Count(page, "<rect class=\"cfg\" x="); n != 6 {
		t.Errorf("%d configured bars, want 6", n)
	}
	if !strings.Contains(page, `<span id="total-drops">0</span>`) {
		t.Errorf("plinko page: want 0 drops:\n%s", page)
	}
}

func TestExtensionPage(t *testing.T) {
	e := newEnv(t, console.Deps{})
	err := e.console.AddPage(consolepage.Page{Path: "/console/extra", Title: "Extra", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		consolepage.Render(w, r, "Extra", template.HTML("<form method=post>"+string(consolepage.CSRFField(r))+"</form><p id=op>"+template.HTMLEscapeString(consolepage.Operator(r))+"</p>"))
	}), Routes: map[string]http.Handler{"POST /console/extra": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		consolepage.Back(w, r, "/console/extra", "done", nil)
	})}})
	if err != nil {
		t.Fatal(err)
	}
	// A second page on a pattern the console or another page serves is
	// refused, as is a route outside the console.
	for _, p := range []consolepage.Page{
		{Path: "/console/extra", Title: "Again", Handler: http.NotFoundHandler()},
		{Path: "/console/accounts", Title: "Clash", Handler: http.NotFoundHandler()},
		{Path: "/console/other", Title: "Outside", Handler: http.NotFoundHandler(), Routes: map[string]http.Handler{"POST /api/x": http.NotFoundHandler()}},
	} {
		if err := e.console.AddPage(p); err == nil {
			t.Errorf("page %q added; want it refused", p.Title)
		}
	}
	c := client(t)
	if _, page := get(t, c, e.srv.URL+"/console/extra"); !strings.Contains(page, `id="signin"`) {
		t.Fatalf("signed out: want the sign-in page:\n%s", page)
	}
	e.signIn(t, c, "admin", "admin-pw")
	_, page := get(t, c, e.srv.URL+"/console/extra")
	if !strings.Contains(page, "<p id=op>admin</p>") || !strings.Contains(page, `href="/console/extra"`) || !strings.Contains(page, `name="csrf"`) {
		t.Fatalf("extension page:\n%s", page)
	}
	if status, _ := post(t, c, e.srv.URL+"/console/extra", url.Values{}); status != http.StatusForbidden {
		t.Fatalf("extension POST without token: %d", status)
	}
	tok := csrfOf(t, page)
	if status, page := post(t, c, e.srv.URL+"/console/extra", url.Values{"csrf": {tok}}); status != http.StatusOK || !strings.Contains(page, "done") {
		t.Fatalf("extension POST with its token (redirected back with a notice): %d\n%s", status, page)
	}
}

func TestDashboard(t *testing.T) {
	e := newEnv(t, console.Deps{Health: func() error { return errors.New("free disk space is below the margin") }})
	c := client(t)
	e.signIn(t, c, "admin", "admin-pw")
	_, page := get(t, c, e.srv.URL+"/console/")
	// The Plinko area's cards (consolepage.Card) beside the dashboard's own.
	for _, want := range []string{`<b id="storage">failing</b>free disk space is below the margin`, `<b id="online">0</b>`, "no plugins",
		`Drops / min<b id="drops">0.0</b>`, `Tickets in / out<b id="tickets">0 / 0</b>`} {
		if !strings.Contains(page, want) {
			t.Errorf("dashboard lacks %q:\n%s", want, page)
		}
	}
	for _, card := range []consolepage.Card{{ID: "drops", Title: "Again", Value: func() string { return "x" }},
		{ID: "online", Title: "Clash", Value: func() string { return "x" }}, {ID: "empty", Title: "No figure"}} {
		if err := e.console.AddCard(card); err == nil {
			t.Errorf("card %q added; want it refused", card.Title)
		}
	}
}

func TestDashboardListsClusterNodes(t *testing.T) {
	e := newEnv(t, console.Deps{Nodes: func() []console.Node {
		return []console.Node{{Name: "n1", Address: "10.0.0.1:7400", Self: true}, {Name: "n2", Address: "10.0.0.2:7400"}}
	}})
	c := client(t)
	e.signIn(t, c, "admin", "admin-pw")
	_, page := get(t, c, e.srv.URL+"/console/")
	for _, want := range []string{`<table id="nodes">`, "<td>n1</td><td>10.0.0.1:7400</td><td>this node</td>", "<td>n2</td><td>10.0.0.2:7400</td><td></td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("dashboard lacks %q:\n%s", want, page)
		}
	}
	// A single node shows no cluster section.
	e1 := newEnv(t, console.Deps{})
	c1 := client(t)
	e1.signIn(t, c1, "admin", "admin-pw")
	if _, page := get(t, c1, e1.srv.URL+"/console/"); strings.Contains(page, `id="nodes"`) {
		t.Error("a single node's dashboard shows a cluster section")
	}
}

func TestCookieSecureOverTLS(t *testing.T) {
	e := newEnv(t, console.Deps{})
	tls := httptest.NewTLSServer(e.srv.Config.Handler)
	t.Cleanup(tls.Close)
	for _, tc := range []struct {
		url    string
		client *http.Client
		secure bool
	}{{e.srv.URL, http.DefaultClient, false}, {tls.URL, tls.Client(), true}} {
		resp, err := tc.client.Get(tc.url + "/console/signin")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		for _, ck := range resp.Cookies() {
			if ck.Secure != tc.secure || !ck.HttpOnly {
				t.Errorf("%s: cookie %s Secure %v HttpOnly %v, want Secure %v", tc.url, ck.Name, ck.Secure, ck.HttpOnly, tc.secure)
			}
		}
	}
}

// TestAreaFormsRefuseRepeatedFields: an area added with AddArea alone
// gets the console's check of its forms: a field given twice is refused
// before the area's route runs, on the account page's sections (the
// reports area's suspension) and on the area's own pages (the guides
// area's moderation). Before, the check was a wrapper the server put
// around each area, which this test's AddArea, like any other caller,
// did not.
func TestAreaFormsRefuseRepeatedFields(t *testing.T) {
	e := newEnv(t, console.Deps{})
	c := client(t)
	if status, _ := e.signIn(t, c, "admin", "admin-pw"); status != http.StatusOK {
		t.Fatal("sign-in failed")
	}
	_, page := get(t, c, e.srv.URL+"/console/account?login=player")
	tok := csrfOf(t, page)
	_, page = post(t, c, e.srv.URL+"/console/account/suspend", url.Values{"csrf": {tok}, "login": {"player"}, "suspend": {"1"},
		"days": {"1", "3650"}, "reason": {"afk"}})
	if !strings.Contains(page, "the field &#34;days&#34; was given 2 times") || strings.Contains(page, "account suspended until") {
		t.Errorf("suspension with days twice: no refusal on the page:\n%s", page)
	}
	id, _ := e.sys.DB().LoginID("player")
	if m, _ := reports.ModerationOf(e.sys.DB(), id); m.Suspended(time.Now()) {
		t.Error("suspended by a refused form")
	}
	_, page = post(t, c, e.srv.URL+"/console/guides/moderate", url.Values{"csrf": {tok}, "gid": {"1", "2"}, "hidden": {"1"}})
	if !strings.Contains(page, "the field &#34;gid&#34; was given 2 times") {
		t.Errorf("moderation with gid twice: no refusal on the page:\n%s", page)
	}
}
