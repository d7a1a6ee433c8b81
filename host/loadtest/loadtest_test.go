package loadtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/loadtest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// TestEveryOperation runs every operation mixed against a real server and
// checks the report's counts against the budget, the consistency check and
// the server's own counters.
func TestEveryOperation(t *testing.T) {
	ts := clitest.StartDemo(t, clitest.LoadTestLimits)
	o := clitest.LoadTestOptions(t, ts, "noop=1,login=1,switch=1,patch=1,board=1,drop=2,chest=1,exchange=1,purchase=1,cloud=1,store=1,guides=1,"+
		"guide=1,guideflag=1,vote=3,report=1,reportinfo=1")
	o.Accounts, o.Concurrency, o.Requests = 4, 4, 360
	rep, err := loadtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.WriteText(&b)
	t.Log("\n" + b.String())
	ok, errs := rep.Total()
	if ok+errs != 360 || errs != 0 {
		t.Errorf("ok %d + errors %d, want 360 + 0", ok, errs)
	}
	for name := range o.Mix {
		op := rep.Op(name)
		if op == nil || op.OK == 0 || op.P50 <= 0 || op.P99 < op.P50 || op.Max < op.P99 {
			t.Errorf("%s: %+v", name, op)
		}
	}
	c := rep.Consistency
	if !c.OK() || c.BalancesChecked != 4 || checked(c, "cloud files") == 0 || c.Uncertain != 0 || checked(c, "guides votes") == 0 ||
		c.Areas["guides votes"].Left != 0 || checked(c, "guides votes restored") == 0 {
		t.Errorf("consistency: %s", c.Summary())
	}
	// Every account (and its sub-account) was removed, and nothing of
	// them is left: their logins are unknown.
	if cl := rep.Cleanup; cl.Registered != 4 || cl.Removed != 4 || cl.Failed != 0 || cl.Records == 0 {
		t.Errorf("cleanup: %+v", cl)
	}
	for i := 0; i < 4; i++ {
		login := rep.LoginPrefix + strconv.Itoa(i)
		if _, err := ts.Client.Login(context.Background(), login, "load-"+strings.TrimPrefix(rep.LoginPrefix, loadtest.LoginPrefix)); err == nil {
			t.Errorf("%s still logs in", login)
		}
		req, _ := http.NewRequest(http.MethodGet, o.Operator+"/operator/v1/account?login="+login, nil)
		req.Header.Set("Authorization", "Bearer "+o.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("operator API GET account %s: HTTP %d, want 404", login, resp.StatusCode)
		}
	}
	if rep.Server == nil {
		t.Fatal("no server counters")
	}
	// The server counted exactly the requests the report counted.
	for series, want := range map[string]int64{
		`honmaster_http_requests_total{outcome="ok",route="/master/casino/drop/"}`:               rep.Op("drop").OK,
		`honmaster_http_requests_total{outcome="not_found",route="unknown"}`:                     rep.Op("noop").OK,
		`honmaster_http_requests_total{outcome="ok",route="/master/storage/store"}`:              rep.Op("cloud").OK + rep.Op("store").OK,
		`honmaster_http_requests_total{outcome="ok",route="client_requester.php?f=switch_auth"}`: rep.Op("switch").OK,
		`honmaster_logins_total{outcome="ok"}`:                                                   rep.Op("login").OK,
		`honmaster_http_requests_total{outcome="ok",route="client_requester.php?f=guide_vote"}`:  rep.Op("vote").OK,
		`honmaster_http_requests_total{outcome="ok",route="client_requester.php?f=get_guide"}`:   rep.Op("guide").OK,
	} {
		if got := rep.Server.Delta[series]; int64(got) != want {
			t.Errorf("server %s moved by %v, report says %d", series, got, want)
		}
	}
	// A purchase with nothing left to buy looks at the list instead, and a
	// report past the limits asks for the reporting status: each counted
	// in its own row, so the server's counts match row by row.
	for series, want := range map[string]int64{
		`honmaster_http_requests_total{outcome="ok",route="/master/ticketexchange/purchase/"}`: clitest.RowOK(rep, "purchase"),
		`honmaster_http_requests_total{outcome="ok",route="/master/ticketexchange"}`:           clitest.RowOK(rep, "exchange") + clitest.RowOK(rep, "purchase>exchange"),
		`honmaster_http_requests_total{outcome="ok",route="/master/report/report"}`:            clitest.RowOK(rep, "report"),
		`honmaster_http_requests_total{outcome="ok",route="/master/report/reportinforequest"}`: clitest.RowOK(rep, "reportinfo") + clitest.RowOK(rep, "report>reportinfo"),
	} {
		if got := rep.Server.Delta[series]; int64(got) != want {
			t.Errorf("server %s moved by %v, report says %d", series, got, want)
		}
	}
	var flags float64
	for _, f := range []string{"guide_default_set", "guide_default_remove", "guide_favorite_set", "guide_favorite_remove"} {
		flags += rep.Server.Delta[`honmaster_http_requests_total{outcome="ok",route="client_requester.php?f=`+f+`"}`]
	}
	if int64(flags) != rep.Op("guideflag").OK {
		t.Errorf("server flag requests %v, report says %d", flags, rep.Op("guideflag").OK)
	}
	if ratio := rep.Op("drop").Ratio; ratio <= 0 {
		t.Errorf("drop ratio to noop %v", ratio)
	}
	var html strings.Builder
	if err := rep.WriteHTML(&html); err != nil || strings.Count(html.String(), "<svg") < len(o.Mix)+1 {
		t.Errorf("html: %v, %d svg", err, strings.Count(html.String(), "<svg"))
	}
	// The JSON report has the areas' checks under consistency.areas, by
	// name (docs/loadtest.md).
	j, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		Consistency struct {
			Areas map[string]struct {
				What    string `json:"what"`
				Checked *int   `json:"checked"`
				OK      *int   `json:"ok"`
			} `json:"areas"`
		} `json:"consistency"`
	}
	if err := json.Unmarshal(j, &js); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cloud files", "guides votes", "guides votes restored"} {
		if a, ok := js.Consistency.Areas[name]; !ok || a.What == "" || a.Checked == nil || *a.Checked == 0 || a.OK == nil || *a.OK != *a.Checked {
			t.Errorf("JSON report's consistency.areas[%q]: %+v", name, a)
		}
	}
}

// checked is how many things c's area check of name compared, -1 when c
// has none.
func checked(c loadtest.Consistency, name string) int {
	if a := c.Areas[name]; a != nil {
		return a.Checked
	}
	return -1
}

// forward accepts connections on a loopback port and copies each to and
// from target: a second address of the same server.
func forward(t *testing.T, target string) (addr string, conns *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns = new(atomic.Int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				s, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer s.Close()
				go func() { io.Copy(s, c); s.(*net.TCPConn).CloseWrite() }()
				io.Copy(c, s)
			}()
		}
	}()
	return ln.Addr().String(), conns
}

// TestSeveralTargets: with two targets (the server itself and a loopback
// forwarder to it, as two nodes of one community would be) each request
// goes to either, so the two requests of a login and an account's
// mutations cross them, and the consistency check still holds.
func TestSeveralTargets(t *testing.T) {
	ts := clitest.StartDemo(t, clitest.LoadTestLimits)
	u, _ := url.Parse(ts.Client.Base)
	fwd, conns := forward(t, u.Host)
	o := clitest.LoadTestOptions(t, ts, "login=1,drop=2,store=1,vote=1")
	o.Targets = append(o.Targets, "http://"+fwd)
	o.Accounts, o.Concurrency, o.Requests = 4, 4, 120
	rep, err := loadtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ok, errs := rep.Total()
	if ok != 120 || errs != 0 {
		t.Errorf("%d ok, %d errors; want 120, 0", ok, errs)
	}
	c := rep.Consistency
	if !c.OK() || c.BalancesChecked != 4 || checked(c, "cloud files") == 0 || checked(c, "guides votes") == 0 {
		t.Errorf("consistency: %s", c.Summary())
	}
	direct, forwarded := rep.Targets[ts.Client.Base], rep.Targets["http://"+fwd]
	// 140-odd requests each on a fair coin: both sides get some but with
	// probability 2^-139.
	if direct == 0 || forwarded == 0 || conns.Load() == 0 {
		t.Errorf("requests by target %v, forwarder connections %d: want both used", rep.Targets, conns.Load())
	}
}

// TestKeepAccounts: --keep-accounts leaves the accounts, which still log
// in.
func TestKeepAccounts(t *testing.T) {
	ts := clitest.Start(t, clitest.LoadTestLimits)
	o := clitest.LoadTestOptions(t, ts, "patch=1")
	o.Accounts, o.Concurrency, o.Requests, o.KeepAccounts = 2, 2, 4, true
	var log strings.Builder
	o.Log = &log
	rep, err := loadtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "removing the test accounts") || !strings.Contains(log.String(), "keeping the test accounts") {
		t.Errorf("the run's log says:\n%s", log.String())
	}
	if cl := rep.Cleanup; cl.Registered != 2 || cl.Removed != 0 || cl.Kept == "" {
		t.Errorf("cleanup: %+v", cl)
	}
	// The tester's password is "load-" and the run tag.
	if _, err := ts.Client.Login(context.Background(), rep.LoginPrefix+"0", "load-"+strings.TrimPrefix(rep.LoginPrefix, loadtest.LoginPrefix)); err != nil {
		t.Errorf("kept account does not log in: %v", err)
	}
}

// TestProvisioningFailureRemovesAccounts: when provisioning fails after
// registering accounts (guide operations on a server without guides), the
// accounts it registered are removed before the error is returned.
func TestProvisioningFailureRemovesAccounts(t *testing.T) {
	ts := clitest.Start(t, clitest.LoadTestLimits) // no demo seed: no guides
	o := clitest.LoadTestOptions(t, ts, "vote=1")
	o.Accounts, o.Concurrency, o.Requests = 3, 3, 3
	_, err := loadtest.Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "lists no guide") || !strings.Contains(err.Error(), "3 of 3 test accounts removed") {
		t.Fatalf("err = %v", err)
	}
	if n := scrapeGauge(t, o.Operator, "honmaster_sessions_live"); n != 0 {
		t.Errorf("sessions_live %v after the accounts were removed, want 0", n)
	}
}

// TestOperatorCheckedFirst: a wrong operator token, an --operator that
// is not the operator listener, or one whose host name the listener does
// not answer to (operator.allowed_hosts), fails the run before it
// registers anything: no account is left that it could not remove, and
// the address's registrations (5 under the default limits) are not spent.
func TestOperatorCheckedFirst(t *testing.T) {
	ts := clitest.Start(t, nil) // the default [limits]
	// A proxy on loopback that passes requests on under a name the
	// listener was not told about, as a DNS name for it would.
	named := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(&url.URL{Scheme: "http", Host: ts.Runtime.OperatorAddr.String()})
		r.Out.Host = "ops.internal.example"
	}})
	t.Cleanup(named.Close)
	for _, tc := range []struct {
		name   string
		mutate func(o *loadtest.Options)
		kind   error
		want   string
	}{
		{"wrong token", func(o *loadtest.Options) { o.Token = "wrong" }, loadtest.ErrTokenRefused, "the operator token was refused: "},
		{"no token", func(o *loadtest.Options) { o.Token = "" }, loadtest.ErrTokenRefused, "no token was given"},
		{"game listener", func(o *loadtest.Options) { o.Operator = ts.Client.Base }, loadtest.ErrNotOperator, "is --operator the server's operator listener"},
		{"host name", func(o *loadtest.Options) { o.Operator = named.URL }, loadtest.ErrHostRefused, "add the name to the server's operator.allowed_hosts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := clitest.LoadTestOptions(t, ts, "noop=1")
			o.Accounts, o.Concurrency, o.Requests = 2, 2, 2
			tc.mutate(&o)
			var log strings.Builder
			o.Log = &log
			_, err := loadtest.Run(context.Background(), o)
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %v saying %q", err, tc.kind, tc.want)
			}
			if strings.Contains(log.String(), "provisioning") {
				t.Errorf("the run provisioned accounts:\n%s", log.String())
			}
		})
	}
	for i := range 5 {
		r, err := ts.Client.PostForm(context.Background(), "/portal/register", url.Values{"login": {"after" + strconv.Itoa(i)}, "password": {"pw"}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != http.StatusOK {
			t.Fatalf("registration %d after the refused runs: HTTP %d %s, want 200 (the runs spent the address's registrations)", i+1, r.Status, r.Body)
		}
	}
}

// TestRefusedRegistrationNotRemoved: a registration the server refused
// (409: the login is taken, say by a run that kept its accounts and drew
// the same tag) or that never reached it (connection refused) created
// nothing of the run's: the run does not delete an account of that login
// afterwards, nor reports one kept.
func TestRefusedRegistrationNotRemoved(t *testing.T) {
	game := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		io.WriteString(w, `{"error":"this login is already taken"}`)
	}))
	t.Cleanup(game.Close)
	var deleted atomic.Int64
	op := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			deleted.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":"no account has that login"}`)
	}))
	t.Cleanup(op.Close)
	m, _ := loadtest.ParseMix("noop=1")
	o := loadtest.Options{Targets: []string{game.URL}, Operator: op.URL, Token: "t", Accounts: 2, Concurrency: 1, Requests: 1,
		Duration: time.Minute, Mix: m}
	_, err := loadtest.Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "HTTP 409") || strings.Contains(err.Error(), "test accounts") {
		t.Errorf("err = %v; want the 409, and no test accounts to account for", err)
	}
	if n := deleted.Load(); n != 0 {
		t.Errorf("%d deletions asked for accounts the run did not create", n)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	o = loadtest.Options{Targets: []string{closed}, Accounts: 2, Concurrency: 1, Requests: 1, Duration: time.Minute, Mix: m}
	_, err = loadtest.Run(context.Background(), o)
	if err == nil || strings.Contains(err.Error(), "kept") {
		t.Errorf("err = %v; want the connection refused, and no test accounts kept", err)
	}
}

// TestRunTwiceWithBenchConfig: under the default limits a second run
// against the same server is refused at registration; with the load-test
// settings of bench/loadtest.toml (the documented way) both pass.
func TestRunTwiceWithBenchConfig(t *testing.T) {
	bench, err := config.Load(filepath.Join("..", "..", "bench", "loadtest.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.Validate(); err != nil {
		t.Fatalf("bench/loadtest.toml: %v", err)
	}
	twice := func(mutate func(*config.Config)) (first, second error) {
		ts := clitest.Start(t, mutate)
		o := clitest.LoadTestOptions(t, ts, "report=1,store=1")
		o.Accounts, o.Concurrency, o.Requests = 4, 4, 8
		_, first = loadtest.Run(context.Background(), o)
		_, second = loadtest.Run(context.Background(), o)
		return first, second
	}
	// Defaults: 5 registrations at once from one address.
	if first, second := twice(nil); first != nil || second == nil || !strings.Contains(second.Error(), "registrations_per_address") {
		t.Errorf("default limits: first run %v, second %v; want the second refused, naming the setting", first, second)
	}
	if first, second := twice(func(c *config.Config) { c.Limits = bench.Limits }); first != nil || second != nil {
		t.Errorf("bench/loadtest.toml: first run %v, second %v", first, second)
	}
}

// scrapeGauge reads one series of the operator listener's /metrics.
func scrapeGauge(t *testing.T, operatorURL, series string) float64 {
	t.Helper()
	resp, err := http.Get(operatorURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	m, err := loadtest.ParseMetrics(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := m[series]
	if !ok {
		t.Fatalf("no %s in /metrics", series)
	}
	return v
}

func TestParseMix(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
		err  bool
	}{
		{in: "login=1,drop=3,cloud=1", want: "cloud=1,drop=3,login=1"},
		{in: "noop", want: "noop=1"},
		{in: "drop=0,noop=2", want: "noop=2"},
		{in: "bogus=1", err: true},
		{in: "drop=x", err: true},
		{in: "drop=0", err: true},
		{in: "", err: true},
	} {
		m, err := loadtest.ParseMix(tt.in)
		if tt.err {
			if !errors.Is(err, loadtest.ErrUsage) {
				t.Errorf("ParseMix(%q) = %v, want a usage error", tt.in, err)
			}
			continue
		}
		if err != nil || m.String() != tt.want {
			t.Errorf("ParseMix(%q) = %v, %v; want %s", tt.in, m, err, tt.want)
		}
	}
}

// TestNeedsOperator: spending operations refuse to start without the
// operator API, instead of failing every request.
func TestNeedsOperator(t *testing.T) {
	m, _ := loadtest.ParseMix("drop=1")
	_, err := loadtest.Run(context.Background(), loadtest.Options{Targets: []string{"http://127.0.0.1:1"}, Accounts: 1, Concurrency: 1,
		Requests: 1, Duration: time.Second, Mix: m})
	if !errors.Is(err, loadtest.ErrUsage) {
		t.Fatalf("err = %v, want a usage error", err)
	}
}

// TestRoundsNeedSequential: rounds repeat a sequential run's phases; asked
// of a mixed run, or fewer than none, they are refused before anything is
// sent.
func TestRoundsNeedSequential(t *testing.T) {
	m, _ := loadtest.ParseMix("noop=1")
	for _, o := range []loadtest.Options{{Rounds: 2}, {Rounds: -1, Sequential: true}} {
		o.Targets, o.Accounts, o.Concurrency, o.Requests, o.Duration, o.Mix = []string{"http://127.0.0.1:1"}, 1, 1, 1, time.Second, m
		if _, err := loadtest.Run(context.Background(), o); !errors.Is(err, loadtest.ErrUsage) {
			t.Errorf("rounds %d, sequential %t: err = %v, want a usage error", o.Rounds, o.Sequential, err)
		}
	}
}

// TestBracketNeedsSequentialAndNoop: a bracketed run puts no-op phases
// between a sequential run's phases and measures against them; asked of a
// mixed run, or of a mix without the no-op, it is refused before anything
// is sent, saying what to add.
func TestBracketNeedsSequentialAndNoop(t *testing.T) {
	for _, tt := range []struct {
		mix        string
		sequential bool
		want       string
	}{
		{mix: "noop=1,login=1", want: "give --sequential with --bracket"},
		{mix: "login=1,drop=1", sequential: true, want: "add noop to the mix"},
	} {
		m, _ := loadtest.ParseMix(tt.mix)
		o := loadtest.Options{Targets: []string{"http://127.0.0.1:1"}, Accounts: 1, Concurrency: 1, Requests: 1, Duration: time.Second,
			Mix: m, Sequential: tt.sequential, Bracket: true}
		if _, err := loadtest.Run(context.Background(), o); !errors.Is(err, loadtest.ErrUsage) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("mix %s, sequential %t: err = %v, want a usage error saying %q", tt.mix, tt.sequential, err, tt.want)
		}
	}
}

// TestFloorCoresNeeds: the naive login floor is measured after the login
// phases of a sequential run, with the no-op and the server's CPU to
// compare it with; asked otherwise, or with a core list that is not one,
// it is refused before anything is sent, saying what to add.
func TestFloorCoresNeeds(t *testing.T) {
	for _, tt := range []struct {
		mix, cores string
		sequential bool
		pid        int
		want       string
	}{
		{mix: "noop=1,login=1", cores: "0", pid: 1, want: "give --sequential with --floor-cores"},
		{mix: "noop=1,drop=1", cores: "0", sequential: true, pid: 1, want: "add login to the mix"},
		{mix: "login=1", cores: "0", sequential: true, pid: 1, want: "add noop to the mix"},
		{mix: "noop=1,login=1", cores: "0", sequential: true, want: "--server-pid"},
		{mix: "noop=1,login=1", cores: "1-0", sequential: true, pid: 1, want: "runs backwards"},
		{mix: "noop=1,login=1", cores: "zero", sequential: true, pid: 1, want: "not a core number"},
	} {
		m, _ := loadtest.ParseMix(tt.mix)
		o := loadtest.Options{Targets: []string{"http://127.0.0.1:1"}, Accounts: 1, Concurrency: 1, Requests: 1, Duration: time.Second,
			Mix: m, Sequential: tt.sequential, ServerPID: tt.pid, FloorCores: tt.cores, Operator: "http://127.0.0.1:1", Token: "t"}
		if _, err := loadtest.Run(context.Background(), o); !errors.Is(err, loadtest.ErrUsage) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("mix %s, cores %q, sequential %t, pid %d: err = %v, want a usage error saying %q", tt.mix, tt.cores, tt.sequential, tt.pid, err, tt.want)
		}
	}
}

// TestLoadTestNamesTheToggleLimits: switch_auth and guide marks have a
// budget per account and per address (limits.toggles_*), which the load
// tester's one account exceeds at once; its first error of each says which
// settings to lift, as bench/loadtest.toml does.
func TestLoadTestNamesTheToggleLimits(t *testing.T) {
	ts := clitest.StartDemo(t, func(c *config.Config) {
		clitest.LoadTestLimits(c)
		c.Limits.TogglesAccount = config.Rate{Burst: 30, Every: config.Duration{Duration: time.Hour}}
	})
	o := clitest.LoadTestOptions(t, ts, "switch=1,guideflag=1")
	// About 100 of each on one account, against a burst of 30 and one
	// more an hour: past the budget however slowly they run.
	o.Accounts, o.Concurrency, o.Requests = 1, 1, 200
	rep, err := loadtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"switch", "guideflag"} {
		op := rep.Op(name)
		if op == nil {
			t.Fatalf("no %s row", name)
		}
		found := false
		for _, first := range op.FirstErrors {
			found = found || strings.Contains(first, "limits.toggles_per_account and toggles_per_address")
		}
		if !found {
			t.Errorf("%s: first errors %v; want one naming the settings to lift", name, op.FirstErrors)
		}
	}
}

// TestLoadTestNamesTheLoginLimit: pre_auth has a rate per address
// (limits.logins_per_address), which the load tester's logins from one
// address exceed; its first error says which setting to lift.
func TestLoadTestNamesTheLoginLimit(t *testing.T) {
	ts := clitest.Start(t, func(c *config.Config) {
		clitest.LoadTestLimits(c)
		c.Limits.LoginsAddress = config.Rate{Burst: 10, Every: config.Duration{Duration: time.Hour}}
	})
	o := clitest.LoadTestOptions(t, ts, "login=1")
	o.Accounts, o.Concurrency, o.Requests = 1, 1, 20 // past a burst of 10, one more an hour, however slowly
	rep, err := loadtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	op := rep.Op("login")
	if op == nil {
		t.Fatal("no login row")
	}
	found := false
	for _, first := range op.FirstErrors {
		found = found || strings.Contains(first, "limits.logins_per_address")
	}
	if !found {
		t.Errorf("login: first errors %v; want one naming the setting to lift", op.FirstErrors)
	}
}

// cancelAtRun cancels the run's context at the log line that says the
// operations start.
type cancelAtRun struct {
	cancel context.CancelFunc
	once   sync.Once
}

func (w *cancelAtRun) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte("running ")) {
		w.once.Do(w.cancel)
	}
	return len(p), nil
}

// TestAnInterruptedRunSaysSo: a run interrupted (Ctrl-C) read the
// accounts' balances at its end with its cancelled context: every read
// failed, the check reported a MISMATCH, and the command exited with "the
// consistency check found a mismatch" instead of saying it was
// interrupted. The balances are not checked then (Consistency.Skipped
// says why), and the run's failure is its interruption; the test accounts
// are still removed. (From a review of the load tester; a mismatch
// before.)
func TestAnInterruptedRunSaysSo(t *testing.T) {
	ts := clitest.Start(t, clitest.LoadTestLimits)
	o := clitest.LoadTestOptions(t, ts, "drop=1")
	o.Accounts, o.Concurrency, o.Requests = 2, 2, 1_000_000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o.Log = &cancelAtRun{cancel: cancel}
	rep, err := loadtest.Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Consistency; !c.OK() || !strings.Contains(c.Skipped, "interrupted") {
		t.Errorf("consistency of an interrupted run: %s", c.Summary())
	}
	if f := rep.Failures(true); !slices.Contains(f, "the run was interrupted") {
		t.Errorf("failures %q, want the interruption", f)
	}
	if cl := rep.Cleanup; cl.Removed != 2 {
		t.Errorf("cleanup of an interrupted run: %+v", cl)
	}
}
