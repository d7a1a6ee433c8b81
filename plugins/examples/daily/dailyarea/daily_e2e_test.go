package dailyarea

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/loadtest"
	"github.com/honmaster/masterserver/host/operator"
)

// TestMain: the server under test runs the area's bundled plugin by
// re-executing this test binary, which registered the area by being this
// package.
func TestMain(m *testing.M) { clitest.Main(m) }

type claimed struct {
	success, granted       bool
	tickets, streak, after int64
	err                    string
}

func claim(t *testing.T, c *client.Client, cookie string) claimed {
	t.Helper()
	rep, err := c.PostForm(context.Background(), PathClaim, url.Values{"cookie": {cookie}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := rep.PHP()
	if err != nil {
		t.Fatal(err)
	}
	var out claimed
	out.success, _ = a.Bool("success")
	out.granted, _ = a.Bool("granted")
	out.tickets, _ = a.Int("tickets")
	out.streak, _ = a.Int("streak")
	out.after, _ = a.Int("user_tickets")
	out.err, _ = a.String("error")
	return out
}

// tickets reads the account's balance from another area (the Plinko board).
func tickets(t *testing.T, c *client.Client, cookie string) int64 {
	t.Helper()
	rep, err := c.PostForm(context.Background(), "/master/casino/", url.Values{"cookie": {cookie}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := rep.PHP()
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := a.Int("user_tickets"); ok {
		return n
	}
	text, _ := a.String("user_tickets")
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		t.Fatalf("board reply's user_tickets: %v: %s", err, rep.Body)
	}
	return n
}

func signIn(t *testing.T, s *clitest.Server, name string) string {
	t.Helper()
	s.Host(t, "account", "create", "--login", name, "--password", "pw")
	sess, err := s.Client.Login(context.Background(), name, "pw")
	if err != nil {
		t.Fatal(err)
	}
	return sess.Cookie
}

func TestClaimPaysAStreakOncePerDay(t *testing.T) {
	t.Cleanup(func() { dayShift.Store(0) })
	s := clitest.Start(t, nil)
	cookie := signIn(t, s, "dana")
	start := tickets(t, s.Client, cookie)

	first := claim(t, s.Client, cookie)
	if want := (claimed{success: true, granted: true, tickets: 10, streak: 1, after: start + 10}); first != want {
		t.Fatalf("first claim = %+v, want %+v", first, want)
	}
	again := claim(t, s.Client, cookie)
	if want := (claimed{success: true, granted: false, tickets: 0, streak: 1, after: start + 10}); again != want {
		t.Fatalf("second claim on one day = %+v, want %+v", again, want)
	}
	dayShift.Add(1)
	next := claim(t, s.Client, cookie)
	if want := (claimed{success: true, granted: true, tickets: 15, streak: 2, after: start + 25}); next != want {
		t.Fatalf("next day = %+v, want %+v", next, want)
	}
	dayShift.Add(2) // a day missed
	reset := claim(t, s.Client, cookie)
	if want := (claimed{success: true, granted: true, tickets: 10, streak: 1, after: start + 35}); reset != want {
		t.Fatalf("after a missed day = %+v, want %+v", reset, want)
	}
	if got := tickets(t, s.Client, cookie); got != start+35 {
		t.Errorf("the balance another area reads is %d, want %d", got, start+35)
	}

	// The area's operator commands, through the running server's admin
	// socket.
	if out := s.Host(t, "daily", "show", "--login", "dana"); !strings.Contains(out, "dana: streak of 1 days, last claim on ") {
		t.Errorf("daily show = %q", out)
	}
	if out := s.Host(t, "daily", "reset", "--login", "dana"); !strings.Contains(out, "reset") {
		t.Errorf("daily reset = %q", out)
	}
	if out := s.Host(t, "daily", "show", "--login", "dana"); out != "dana has not claimed a daily reward" {
		t.Errorf("daily show after reset = %q", out)
	}
	if after := claim(t, s.Client, cookie); !after.granted || after.streak != 1 || after.after != start+45 {
		t.Errorf("claim after a reset = %+v, want a new streak paying 10", after)
	}
	if code, _, errOut := s.Run("daily", "show"); code != 2 || !strings.Contains(errOut, "--login is required") {
		t.Errorf("daily show without --login: exit %d: %s", code, errOut)
	}
	if code, _, errOut := s.Run("daily", "show", "--login", "nobody"); code == 0 || !strings.Contains(errOut, `no account "nobody"`) {
		t.Errorf("daily show --login nobody: exit %d: %s", code, errOut)
	}
	if code, out, errOut := s.Run("daily", "--help"); code != 0 || !strings.Contains(out, "daily show --login L") || !strings.Contains(out, "daily reset --login L") {
		t.Errorf("daily --help: exit %d, does not list the area's commands:\n%s%s", code, out, errOut)
	}

	bad := claim(t, s.Client, strings.Repeat("0", 32))
	if bad.success || !strings.Contains(bad.err, "log in again") {
		t.Errorf("claim with a dead cookie = %+v", bad)
	}

	// With the server stopped, the commands open the data directory.
	if err := s.Runtime.Stop(); err != nil {
		t.Fatal(err)
	}
	if out := s.Host(t, "daily", "reset", "--login", "dana"); !strings.Contains(out, "reset") {
		t.Errorf("daily reset, offline = %q", out)
	}
	if out := s.Host(t, "daily", "show", "--login", "dana"); out != "dana has not claimed a daily reward" {
		t.Errorf("daily show, offline, after reset = %q", out)
	}
}

// TestHostRefusesWhatMaxTicketsForbids: the plugin (configured to pay 500)
// decides more than [areas.daily] max_tickets allows: the claim is
// refused, nothing is paid and the streak is not stored.
func TestHostRefusesWhatMaxTicketsForbids(t *testing.T) {
	s := clitest.Start(t, func(c *config.Config) {
		p := c.Plugins[name]
		p.Config = map[string]any{"base": int64(500)}
		c.Plugins[name] = p
	})
	cookie := signIn(t, s, "erin")
	start := tickets(t, s.Client, cookie)
	for range 2 {
		got := claim(t, s.Client, cookie)
		if got.success || !strings.Contains(got.err, "unavailable") {
			t.Fatalf("claim paying 500 over max_tickets 100 = %+v", got)
		}
	}
	if got := tickets(t, s.Client, cookie); got != start {
		t.Errorf("tickets %d after refused claims, want %d", got, start)
	}
	m := s.Metrics(t)
	if v := m[`honmaster_http_requests_total{outcome="error",route="/master/daily/claim"}`]; v != 2 {
		t.Errorf("claims counted as errors: %v, want 2", v)
	}
	// The plugin answered both (the host refused its decisions): one
	// series per decision, the one zero-initialised at start.
	if v, ok := m[`honmaster_plugin_calls_total{area="daily",method="claim",outcome="ok"}`]; v != 2 {
		t.Errorf("plugin calls ok = %v (present %v), want 2", v, ok)
	}
	if _, ok := m[`honmaster_plugin_calls_total{area="daily",method="daily.claim",outcome="ok"}`]; ok {
		t.Error("a second series names the decision with its area")
	}
}

func TestSettingsAreValidated(t *testing.T) {
	c := config.Default()
	if s, ok := config.Section[Settings](c, name); !ok || s != DefaultSettings {
		t.Fatalf("default [areas.daily] = %+v, %v", s, ok)
	}
	c.Areas[name] = &Settings{MaxTickets: 0}
	err := c.Validate()
	if ps := config.Problems(err); len(ps) != 1 || ps[0].Key != "areas.daily" {
		t.Errorf("Validate with max_tickets 0 = %v", err)
	}
}

// TestLoadTestOperation: the area's load-test operation, mixed with drops
// (which spend tickets) against a real server: no failure, and the run's
// end-of-run check finds every account's tickets as the claims and drops
// said.
func TestLoadTestOperation(t *testing.T) {
	s := clitest.StartDemo(t, clitest.LoadTestLimits)
	tok, err := os.ReadFile(filepath.Join(s.DataDir, operator.TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	mix, err := loadtest.ParseMix("daily=2,drop=1,board=1")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := loadtest.Run(context.Background(), loadtest.Options{Targets: []string{s.Client.Base},
		Operator: "http://" + s.Runtime.OperatorAddr.String(), Token: strings.TrimSpace(string(tok)),
		Mix: mix, Accounts: 3, Concurrency: 3, Requests: 60, Duration: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.WriteText(&b)
	if ok, errs := rep.Total(); ok+errs != 60 || errs != 0 {
		t.Errorf("ok %d + errors %d, want 60 + 0:\n%s", ok, errs, b.String())
	}
	if op := rep.Op(name); op == nil || op.OK == 0 {
		t.Errorf("no daily claims counted:\n%s", b.String())
	}
	if c := rep.Consistency; !c.OK() || c.BalancesChecked != 3 || c.Uncertain != 0 {
		t.Errorf("consistency: %s", c.Summary())
	}
}
