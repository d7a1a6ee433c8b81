package coinfliparea_test

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/loadtest"
	"github.com/honmaster/masterserver/host/operator"
	"github.com/honmaster/masterserver/plugins/examples/coinflip/coinfliparea"
)

// TestMain: the server under test runs the area's bundled plugin by
// re-executing this test binary.
func TestMain(m *testing.M) { clitest.Main(m) }

type reply struct {
	success, won         bool
	stake, streak, after int64
	tickets              int64
	err                  string
}

func post(t *testing.T, c *client.Client, path string, form url.Values) reply {
	t.Helper()
	rep, err := c.PostForm(context.Background(), path, form)
	if err != nil {
		t.Fatal(err)
	}
	a, err := rep.PHP()
	if err != nil {
		t.Fatalf("%s: %v: %s", path, err, rep.Body)
	}
	var out reply
	out.success, _ = a.Bool("success")
	out.won, _ = a.Bool("won")
	out.stake, _ = a.Int("stake")
	out.streak, _ = a.Int("streak")
	out.after, _ = a.Int("user_tickets")
	out.tickets, _ = a.Int("tickets")
	out.err, _ = a.String("error")
	return out
}

func flip(t *testing.T, s *clitest.Server, cookie string, stake int) reply {
	t.Helper()
	return post(t, s.Client, coinfliparea.PathFlip, url.Values{"cookie": {cookie}, "stake": {strconv.Itoa(stake)}})
}

func gift(t *testing.T, s *clitest.Server, cookie, to string, n int) reply {
	t.Helper()
	return post(t, s.Client, coinfliparea.PathGift, url.Values{"cookie": {cookie}, "to": {to}, "tickets": {strconv.Itoa(n)}})
}

// player creates an account holding the tickets and signs it in.
func player(t *testing.T, s *clitest.Server, name string, tickets int) string {
	t.Helper()
	s.Host(t, "account", "create", "--login", name, "--password", "pw")
	s.Host(t, "account", "grant", "--login", name, "--tickets", strconv.Itoa(tickets))
	sess, err := s.Client.Login(context.Background(), name, "pw")
	if err != nil {
		t.Fatal(err)
	}
	return sess.Cookie
}

// balance reads the account's tickets as the operator sees them.
func balance(t *testing.T, s *clitest.Server, name string) int64 {
	t.Helper()
	for _, line := range strings.Split(s.Host(t, "account", "show", "--login", name), "\n") {
		if f := strings.Fields(line); len(f) == 6 && f[4] == "tickets" {
			n, err := strconv.ParseInt(f[5], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("account show %s has no tickets line", name)
	return 0
}

func withOdds(odds float64) func(*config.Config) {
	return func(c *config.Config) {
		p := c.Plugins["coinflip"]
		p.Config = map[string]any{"odds": odds}
		c.Plugins["coinflip"] = p
	}
}

// TestFlipPaysAndKeepsTheStreak: with odds 1 every flip wins: the stake is
// paid, the streak grows in the area's state, which "coinflip show"
// reads; the area's refusals and the metric.
func TestFlipPaysAndKeepsTheStreak(t *testing.T) {
	s := clitest.Start(t, withOdds(1))
	cookie := player(t, s, "fay", 50)

	if got, want := flip(t, s, cookie, 10), (reply{success: true, won: true, stake: 10, streak: 1, after: 60}); got != want {
		t.Fatalf("first flip = %+v, want %+v", got, want)
	}
	if got, want := flip(t, s, cookie, 60), (reply{success: true, won: true, stake: 60, streak: 2, after: 120}); got != want {
		t.Fatalf("second flip = %+v, want %+v", got, want)
	}
	for _, stake := range []int{0, 101} {
		if got := flip(t, s, cookie, stake); got.success || !strings.HasPrefix(got.err, "that stake is not allowed") {
			t.Errorf("stake %d = %+v, want refused", stake, got)
		}
	}
	if got := post(t, s.Client, coinfliparea.PathFlip, url.Values{"cookie": {cookie}, "stake": {"x"}}); got.success || got.err != "the request could not be read" {
		t.Errorf("stake x = %+v", got)
	}
	if got := flip(t, s, strings.Repeat("0", 32), 1); got.success || !strings.Contains(got.err, "log in again") {
		t.Errorf("flip with a dead cookie = %+v", got)
	}
	if out := s.Host(t, "coinflip", "show", "--login", "fay"); out != "fay: streak 2, best_streak 2, flips 2, wins 2" {
		t.Errorf("coinflip show = %q", out)
	}
	if code, _, errOut := s.Run("coinflip", "show", "--login", "nobody"); code != 1 || !strings.Contains(errOut, `no account "nobody"`) {
		t.Errorf("coinflip show --login nobody: exit %d: %s", code, errOut)
	}
	m := s.Metrics(t)
	for series, want := range map[string]float64{
		`honmaster_coinflip_flips_total{outcome="won"}`:                                  2,
		`honmaster_coinflip_flips_total{outcome="lost"}`:                                 0,
		`honmaster_http_requests_total{outcome="refused",route="/master/coinflip/flip"}`: 4,
		`honmaster_http_requests_total{outcome="ok",route="/master/coinflip/flip"}`:      2,
	} {
		if got, ok := m[series]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", series, got, ok, want)
		}
	}
	if got := balance(t, s, "fay"); got != 120 {
		t.Errorf("stored balance %d, want 120", got)
	}
}

// TestShortBalanceRefusedAndLossTakes: with odds 0 a flip loses its stake
// and ends the streak; a stake above the balance is refused, nothing
// taken.
func TestShortBalanceRefusedAndLossTakes(t *testing.T) {
	s := clitest.Start(t, withOdds(0))
	cookie := player(t, s, "gus", 30)
	if got := flip(t, s, cookie, 31); got.success || got.err != "you do not have enough tickets" {
		t.Errorf("stake above the balance = %+v", got)
	}
	if got, want := flip(t, s, cookie, 30), (reply{success: true, stake: 30, after: 0}); got != want {
		t.Errorf("lost flip = %+v, want %+v", got, want)
	}
	if out := s.Host(t, "coinflip", "show", "--login", "gus"); out != "gus: streak 0, best_streak 0, flips 1, wins 0" {
		t.Errorf("coinflip show = %q", out)
	}
}

// TestExternalPluginSwappedIn points [plugins.coinflip] path at another
// binary (cmd/coinflip-alternate): its coin alternates whatever the odds,
// and the host's command reads the state it keeps, the contract's.
func TestExternalPluginSwappedIn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "coinflip-alternate")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/honmaster/masterserver/plugins/examples/coinflip/cmd/coinflip-alternate").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	s := clitest.Start(t, func(c *config.Config) {
		p := c.Plugins["coinflip"]
		p.Path = bin
		c.Plugins["coinflip"] = p
	})
	if out := s.Host(t, "plugins"); !strings.Contains(out, "coinflip-alternate@1.0.0") {
		t.Fatalf("plugins:\n%s", out)
	}
	cookie := player(t, s, "hal", 10)
	var won []bool
	for range 3 {
		won = append(won, flip(t, s, cookie, 5).won)
	}
	if !won[0] || won[1] || !won[2] {
		t.Errorf("the alternating coin won %v, want true false true", won)
	}
	if out := s.Host(t, "coinflip", "show", "--login", "hal"); out != "hal: streak 1, best_streak 1, flips 3, wins 2" {
		t.Errorf("coinflip show of the external plugin's state = %q", out)
	}
}

// TestGiftMovesTicketsWhole: a gift debits the sender and credits the
// receiver; refusals move nothing; gifts crossing between two accounts at
// once all complete (no deadlock) and the balances sum as before.
func TestGiftMovesTicketsWhole(t *testing.T) {
	s := clitest.Start(t, clitest.LoadTestLimits)
	ann := player(t, s, "ann", 100)
	bob := player(t, s, "bob", 100)
	if got := gift(t, s, ann, "bob", 30); !got.success || got.tickets != 30 {
		t.Fatalf("gift = %+v", got)
	}
	if a, b := balance(t, s, "ann"), balance(t, s, "bob"); a != 70 || b != 130 {
		t.Fatalf("after a gift of 30: ann %d, bob %d; want 70, 130", a, b)
	}
	for _, tc := range []struct {
		to      string
		tickets int
		want    string
	}{
		{"bob", 71, "you do not have enough tickets"},
		{"bob", 0, "that gift is not allowed: at least 1 ticket, and no more than the server's limit"},
		{"bob", 1001, "that gift is not allowed: at least 1 ticket, and no more than the server's limit"},
		{"ann", 1, "a gift goes to another player"},
		{"nobody", 1, "there is no player with that name"},
	} {
		if got := gift(t, s, ann, tc.to, tc.tickets); got.success || got.err != tc.want {
			t.Errorf("gift of %d to %s = %+v, want %q", tc.tickets, tc.to, got, tc.want)
		}
	}

	// Crossing gifts: 40 each way at once, 1 ticket each.
	var wg sync.WaitGroup
	errs := make(chan string, 80)
	for _, p := range [][2]string{{ann, "bob"}, {bob, "ann"}} {
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 10 {
					rep, err := s.Client.PostForm(context.Background(), coinfliparea.PathGift, url.Values{"cookie": {p[0]}, "to": {p[1]}, "tickets": {"1"}})
					if err != nil {
						errs <- err.Error()
						continue
					}
					if a, err := rep.PHP(); err != nil {
						errs <- err.Error()
					} else if ok, _ := a.Bool("success"); !ok {
						errs <- string(rep.Body)
					}
				}
			}()
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("crossing gifts did not finish in two minutes")
	}
	close(errs)
	for e := range errs {
		t.Errorf("crossing gift failed: %s", e)
	}
	if a, b := balance(t, s, "ann"), balance(t, s, "bob"); a != 70 || b != 130 {
		t.Errorf("after 40 gifts each way: ann %d, bob %d; want 70, 130", a, b)
	}
}

func TestSettingsAreValidated(t *testing.T) {
	c := config.Default()
	if s, ok := config.Section[coinfliparea.Settings](c, "coinflip"); !ok || s != coinfliparea.DefaultSettings {
		t.Fatalf("default [areas.coinflip] = %+v, %v", s, ok)
	}
	c.Areas["coinflip"] = &coinfliparea.Settings{MaxStake: 0, MaxGift: 10}
	if ps := config.Problems(c.Validate()); len(ps) != 1 || ps[0].Key != "areas.coinflip" {
		t.Errorf("Validate with max_stake 0 = %v", ps)
	}
}

// TestLoadTestOperation: the area's operation in a mix with drops (which
// spend tickets too): no failure, and the end-of-run check finds every
// account's tickets as the flips and drops said.
func TestLoadTestOperation(t *testing.T) {
	s := clitest.StartDemo(t, clitest.LoadTestLimits)
	tok, err := os.ReadFile(filepath.Join(s.DataDir, operator.TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	mix, err := loadtest.ParseMix("coinflip=2,drop=1,board=1")
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
	if op := rep.Op("coinflip"); op == nil || op.OK == 0 {
		t.Errorf("no flips counted:\n%s", b.String())
	}
	if c := rep.Consistency; !c.OK() || c.BalancesChecked != 3 || c.Uncertain != 0 {
		t.Errorf("consistency: %s", c.Summary())
	}
}
