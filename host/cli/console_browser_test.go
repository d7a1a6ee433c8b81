package cli_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/plinko"
	"github.com/honmaster/masterserver/wire"
)

// chromiumPath is Debian's chromium (apt-get install chromium); .ci/run
// installs it.
const chromiumPath = "/usr/bin/chromium"

// screenshotsEnv names the directory where the browser test keeps a PNG of
// each console page (default: the test's temporary directory).
const screenshotsEnv = "CONSOLE_SCREENSHOTS"

// browser starts a headless Chromium with a fresh profile, or skips the
// test when it is not installed (fails under CI=true: CI installs it).
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium is required under CI: %v", err)
		}
		t.Skipf("chromium not installed (%v); apt-get install chromium", err)
	}
	profile := t.TempDir()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	return ctx
}

func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// TestConsoleInBrowser drives the web console in headless Chromium as an
// operator would: sign in, find an account, grant tickets and an upgrade and
// see them in the player's next game login, suspend the account and see
// susp_id in the next login's record, import a catalog and see the chart;
// then a player registers on the game listener's page, another reports
// them, the operator resolves the report with a suspension and the
// offender's next login carries it; last, a guides file is imported and a
// guide hidden. One browser session throughout.
func TestConsoleInBrowser(t *testing.T) {
	ctx := browser(t)
	shots := os.Getenv(screenshotsEnv)
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("console screenshots in %s", shots)

	var running *config.Config // the configuration the reload button reads back
	ts := clitest.StartWith(t, nil, cli.WithConfigSource(func() (*config.Config, error) { c := *running; return &c, nil }))
	running = ts.Config
	ts.Host(t, "account", "create", "--login", "boss", "--password", "boss-pw")
	ts.Host(t, "account", "create", "--login", "player", "--password", "player-pw", "--nickname", "Fluffy")
	ts.Host(t, "account", "role", "--login", "boss", "--operator")
	base := "http://" + ts.Runtime.OperatorAddr.String() + "/console/"

	// Sign in.
	do(t, ctx, "sign-in page", chromedp.Navigate(base+"signin"), chromedp.WaitVisible(chromedp.CSS("#login")))
	screenshot(t, ctx, shots, "signin")
	do(t, ctx, "sign in",
		chromedp.SendKeys(chromedp.CSS("#login"), "boss"),
		chromedp.SendKeys(chromedp.CSS("#password"), "boss-pw"),
		chromedp.Click(chromedp.CSS("#signin")),
		chromedp.WaitVisible(chromedp.CSS("#online")))
	if got := text(t, ctx, "#storage"); got != "healthy" {
		t.Errorf("dashboard storage = %q", got)
	}
	if got := text(t, ctx, "#plugins"); !strings.Contains(got, "plinko") || !strings.Contains(got, "running") {
		t.Errorf("dashboard plugins = %q", got)
	}
	screenshot(t, ctx, shots, "dashboard")
	do(t, ctx, "reload button", chromedp.Click(chromedp.CSS("#reload")), chromedp.WaitVisible(chromedp.CSS("#notice")))
	if got := text(t, ctx, "#notice"); !strings.Contains(got, "configuration reloaded: nothing changed") {
		t.Errorf("reload notice = %q", got)
	}

	// Find the account by nickname and grant tickets and an upgrade.
	do(t, ctx, "search",
		chromedp.Navigate(base+"accounts"),
		chromedp.SendKeys(chromedp.CSS("#q"), "fluff"),
		chromedp.Click(chromedp.CSS("#search")),
		chromedp.WaitVisible(chromedp.CSS("#results")))
	if got := text(t, ctx, "#results"); !strings.Contains(got, "player") || strings.Contains(got, "boss") {
		t.Fatalf("search results = %q", got)
	}
	screenshot(t, ctx, shots, "accounts")
	do(t, ctx, "open account", chromedp.Click(chromedp.CSS(`#results a[href*="login=player"]`)), chromedp.WaitVisible(chromedp.CSS("#grant-tickets")))
	do(t, ctx, "grant",
		chromedp.SendKeys(chromedp.CSS("#grant-tickets"), "500"),
		chromedp.SendKeys(chromedp.CSS(`input[name="upgrades"]`), "aa.Hero_Pyromancer.Alt2"),
		chromedp.Click(chromedp.CSS("#grant")),
		chromedp.WaitVisible(chromedp.CSS("#notice")))
	if got := text(t, ctx, "#balances"); !strings.Contains(got, "tickets 500") {
		t.Fatalf("balances after grant = %q", got)
	}
	screenshot(t, ctx, shots, "account")

	// A phone 360 px wide: the page (with its session-record table, the
	// widest) lays out at the phone's width, not a desktop's 980 px.
	do(t, ctx, "phone viewport", chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile), chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS("#grant-tickets")))
	width, err := chromedp.Run(ctx, chromedp.Evaluate[int64]("document.documentElement.scrollWidth"))
	if err != nil {
		t.Fatal(err)
	}
	if width > 360 {
		t.Errorf("the account page is %d px wide on a 360 px phone", width)
	}
	screenshot(t, ctx, shots, "account-360px")
	do(t, ctx, "desktop viewport", chromedp.EmulateReset(), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#grant-tickets")))

	// The player's next game login sees them: the upgrade in the session
	// record, the tickets on the Plinko board.
	cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sess, err := ts.Client.Login(cctx, "player", "player-pw")
	if err != nil {
		t.Fatal(err)
	}
	if ups, _ := sess.Record.Get("my_upgrades"); !strings.Contains(phpString(ups), "aa.Hero_Pyromancer.Alt2") {
		t.Errorf("my_upgrades after grant = %v", phpString(ups))
	}
	r, err := ts.Client.PostForm(cctx, plinko.PathBoard, url.Values{"cookie": {sess.Cookie}})
	if err != nil {
		t.Fatal(err)
	}
	board, err := r.PHP()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := board.String("user_tickets"); got != "500" {
		t.Errorf("board user_tickets = %q, want 500", got)
	}

	// Suspend: the next login's record says so.
	do(t, ctx, "suspend", chromedp.Click(chromedp.CSS("#suspend")), chromedp.WaitVisible(chromedp.CSS("#unsuspend")))
	if got := text(t, ctx, "#status"); !strings.Contains(got, "suspended") {
		t.Errorf("status after suspend = %q", got)
	}
	sess2, err := ts.Client.Login(cctx, "player", "player-pw")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := sess2.Record.String("susp_id"); got != "1" {
		t.Errorf("susp_id at next login = %q, want 1", got)
	}

	// Import a catalog and see it and the chart; a drop shows in the
	// observed distribution.
	catalog, err := filepath.Abs("../plinko/testdata/catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "plinko page", chromedp.Navigate(base+"plinko"), chromedp.WaitVisible(chromedp.CSS("#no-catalog")))
	do(t, ctx, "import",
		chromedp.SetUploadFiles(chromedp.CSS("#catalog"), []string{catalog}),
		chromedp.Click(chromedp.CSS("#import")),
		chromedp.WaitVisible(chromedp.CSS("#exchange")))
	if got := text(t, ctx, "#notice"); !strings.Contains(got, "catalog imported") {
		t.Errorf("import notice = %q", got)
	}
	if _, err := ts.Client.PostForm(cctx, plinko.PathDrop, url.Values{"cookie": {sess2.Cookie}, "currency": {"tickets"}}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "reload plinko", chromedp.Navigate(base+"plinko"), chromedp.WaitVisible(chromedp.CSS("#chart")))
	bars, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll("#chart rect")))
	if err != nil {
		t.Fatal(err)
	}
	if len(bars) != 12 {
		t.Errorf("chart has %d bars, want 12 (configured and observed, 6 tiers)", len(bars))
	}
	if got := text(t, ctx, "#total-drops"); got != "1" {
		t.Errorf("observed drops = %q, want 1", got)
	}
	screenshot(t, ctx, shots, "plinko")
	// A phone 390 px wide: the chart shrinks to the page (it overflowed).
	do(t, ctx, "plinko on a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS("#chart")))
	if width, err := chromedp.Run(ctx, chromedp.Evaluate[int64]("document.documentElement.scrollWidth")); err != nil {
		t.Fatal(err)
	} else if width > 390 {
		t.Errorf("the Plinko page is %d px wide on a 390 px phone", width)
	}
	// Each number of the catalog's tables on one line (1300 broke as 130/0).
	oneLine := `(() => { const r = document.createRange(); const cells = [...document.querySelectorAll("main td.num")];
		return cells.length > 0 && cells.every(td => { r.selectNodeContents(td); return r.getClientRects().length === 1; }); })()`
	if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](oneLine)); err != nil || !ok {
		t.Errorf("a number of the Plinko page's tables breaks across lines on a 390 px phone (%v)", err)
	}
	screenshot(t, ctx, shots, "plinko-390px")
	do(t, ctx, "desktop viewport", chromedp.EmulateReset(), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#chart")))

	// The dashboard counts the player's logins and session.
	do(t, ctx, "dashboard again", chromedp.Navigate(base), chromedp.WaitVisible(chromedp.CSS("#online")))
	if got := text(t, ctx, "#online"); got != "1" {
		t.Errorf("players online = %q, want 1", got)
	}
	if got := text(t, ctx, "#logins"); got == "0.0" {
		t.Errorf("logins/min = %q after two logins", got)
	}

	do(t, ctx, "cloud page", chromedp.Navigate(base+"cloud?login=player"), chromedp.WaitVisible(chromedp.CSS("main")))
	screenshot(t, ctx, shots, "cloud")

	// Unsuspend the player: the console's suspension is a timed one in the
	// moderation record; lifting it clears the next login's susp_id.
	do(t, ctx, "account again", chromedp.Navigate(base+"account?login=player"), chromedp.WaitVisible(chromedp.CSS("#unsuspend")))
	if got := text(t, ctx, "#standing"); !strings.Contains(got, "suspended until") || !strings.Contains(got, "set by an operator") {
		t.Errorf("standing while suspended = %q", got)
	}
	do(t, ctx, "unsuspend", chromedp.Click(chromedp.CSS("#unsuspend")), chromedp.WaitVisible(chromedp.CSS("#notice")))
	if got := text(t, ctx, "#notice"); got != "suspension lifted" {
		t.Errorf("unsuspend notice = %q", got)
	}

	// A player registers on the game listener's page and logs in.
	game := "http://" + ts.Runtime.Addr.String()
	do(t, ctx, "registration page", chromedp.Navigate(game+"/register"), chromedp.WaitVisible(chromedp.CSS("#login")))
	screenshot(t, ctx, shots, "register-form")
	do(t, ctx, "register",
		chromedp.SendKeys(chromedp.CSS("#login"), "offender"),
		chromedp.SendKeys(chromedp.CSS("#password"), "offender-pw"),
		chromedp.SendKeys(chromedp.CSS("#password2"), "offender-pw"),
		chromedp.Click(chromedp.CSS("#register")),
		chromedp.WaitVisible(chromedp.CSS("#created")))
	screenshot(t, ctx, shots, "register")
	do(t, ctx, "register taken", chromedp.Navigate(game+"/register"), chromedp.WaitVisible(chromedp.CSS("#login")),
		chromedp.SendKeys(chromedp.CSS("#login"), "offender"),
		chromedp.SendKeys(chromedp.CSS("#password"), "x"),
		chromedp.SendKeys(chromedp.CSS("#password2"), "x"),
		chromedp.Click(chromedp.CSS("#register")),
		chromedp.WaitVisible(chromedp.CSS("#error")))
	if got := text(t, ctx, "#error"); got != "this login is already taken" {
		t.Errorf("registration of a taken login = %q", got)
	}
	off, err := ts.Client.Login(cctx, "offender", "offender-pw")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := off.Record.String("susp_id"); got != "0" {
		t.Errorf("offender's susp_id before = %q", got)
	}

	// Another player reports them from the game.
	rep, err := ts.Client.Login(cctx, "player", "player-pw")
	if err != nil {
		t.Fatal(err)
	}
	rr, err := ts.Client.PostForm(cctx, "/master/report/report", url.Values{"reporter_id": {rep.AccountID}, "cookie": {rep.Cookie},
		"reportee_name": {"offender"}, "reason_type": {"1"}, "report_description": {"insulted my mother"}})
	if err != nil {
		t.Fatal(err)
	}
	if a, err := rr.PHP(); err != nil {
		t.Fatal(err)
	} else if n, _ := a.Int("report_success"); n != 1 {
		t.Fatalf("report: report_success %d", n)
	}

	// The operator finds it in the queue and resolves it with a suspension.
	do(t, ctx, "reports page", chromedp.Navigate(base+"reports"), chromedp.WaitVisible(chromedp.CSS("#queue")))
	if got := text(t, ctx, "#queue"); !strings.Contains(got, "offender") || !strings.Contains(got, "insulted my mother") {
		t.Fatalf("queue = %q", got)
	}
	do(t, ctx, "filter by reportee",
		chromedp.SendKeys(chromedp.CSS("#f-reportee"), "OFFEND"),
		chromedp.Click(chromedp.CSS("#filter")),
		// The filtered page: its field carries the value as an attribute.
		chromedp.WaitVisible(chromedp.CSS(`#f-reportee[value="OFFEND"]`)))
	if got := text(t, ctx, "#count"); !strings.HasPrefix(got, "1 report(s)") {
		t.Errorf("filtered count = %q", got)
	}
	screenshot(t, ctx, shots, "reports")
	do(t, ctx, "open report", chromedp.Click(chromedp.CSS(`#queue a[href*="report?id="]`)), chromedp.WaitVisible(chromedp.CSS("#resolve")))
	screenshot(t, ctx, shots, "report")
	do(t, ctx, "resolve",
		chromedp.SetValue(chromedp.CSS("#action"), "suspend"),
		chromedp.SendKeys(chromedp.CSS("#days"), "3"),
		chromedp.SendKeys(chromedp.CSS("#note"), "mind your language"),
		chromedp.Click(chromedp.CSS("#resolve")),
		chromedp.WaitVisible(chromedp.CSS("#resolution")))
	if got := text(t, ctx, "#resolution"); !strings.HasPrefix(got, "suspend 3 day(s) by boss") {
		t.Errorf("resolution = %q", got)
	}
	if got := text(t, ctx, "#report-status"); got != "suspended" {
		t.Errorf("report status = %q", got)
	}
	screenshot(t, ctx, shots, "report-resolved")

	// The offender's next game login carries the suspension.
	off, err = ts.Client.Login(cctx, "offender", "offender-pw")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := off.Record.String("susp_id"); got != "1" {
		t.Errorf("offender's susp_id at next login = %q, want 1", got)
	}

	// Guides: import a file and see the hero's list; hide one guide.
	guidesFile, err := filepath.Abs("../guides/testdata/import_own.json")
	if err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "guides page", chromedp.Navigate(base+"guides"), chromedp.WaitVisible(chromedp.CSS("#heroes")))
	do(t, ctx, "guides import",
		chromedp.SetUploadFiles(chromedp.CSS("#guides-file"), []string{guidesFile}),
		chromedp.Click(chromedp.CSS("#guides-import")),
		chromedp.WaitVisible(chromedp.CSS("#guides")))
	if got := text(t, ctx, "#notice"); got != "imported 3 guides: 3 added, 0 updated" {
		t.Errorf("guides import notice = %q", got)
	}
	if got := text(t, ctx, "#guide-415077"); !strings.Contains(got, "Parallax's complete mid lane guide") || !strings.Contains(got, "98/2") {
		t.Errorf("guide row = %q", got)
	}
	do(t, ctx, "hide guide", chromedp.Click(chromedp.CSS("#guide-415077 button.hide")), chromedp.WaitVisible(chromedp.CSS("#guide-415077 button.unhide")))
	if got := text(t, ctx, "#guide-415077 td.hidden"); got != "yes" {
		t.Errorf("hidden column after hide = %q", got)
	}
	screenshot(t, ctx, shots, "guides")
}

// phpString flattens a decoded PHP value for a contains check.
func phpString(v any) string {
	var sb strings.Builder
	var walk func(any)
	walk = func(v any) {
		if a, ok := v.(*wire.Array); ok {
			for _, e := range a.All() {
				walk(e)
				sb.WriteByte(' ')
			}
			return
		}
		fmt.Fprint(&sb, v)
	}
	walk(v)
	return sb.String()
}
