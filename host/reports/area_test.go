package reports

import (
	"context"
	"crypto/rand"
	"maps"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/srp"
	bundled "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// syncClock is a settable time for the area and the login service, which
// read it from actors and handlers.
type syncClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *syncClock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *syncClock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// areaFixture is the served area over a real (in-memory) actor system, the
// real login service and the bundled plugin in process, on a settable
// clock: what the server runs, minus HTTP, so time can pass.
type areaFixture struct {
	t     *testing.T
	clk   *syncClock
	area  *Area
	login *login.Service
	sys   interface{ DB() *storage.DB }
	grp   *srp.Group
	// accounts creates accounts on the fixture's clock.
	accounts *accounts.Service
}

func newAreaFixture(t *testing.T, logins ...string) *areaFixture {
	t.Helper()
	return newAreaFixtureWith(t, Config{}, logins...)
}

// newAreaFixtureWith is newAreaFixture with the area's configuration cfg.
// Accounts are created on the fixture's clock (f.accounts).
func newAreaFixtureWith(t *testing.T, cfg Config, logins ...string) *areaFixture {
	t.Helper()
	return newAreaFixtureOn(t, actorstest.New(t), cfg, logins...)
}

// newAreaFixtureOn is newAreaFixtureWith over the actor system sys, with
// the area's delete hook registered as the server does.
func newAreaFixtureOn(t *testing.T, sys *actors.System, cfg Config, logins ...string) *areaFixture {
	t.Helper()
	sys.OnDelete(DeleteHook)
	grp := srp.DefaultGroup()
	clk := &syncClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	acc := &accounts.Service{Group: grp, Sys: sys, Now: clk.now}
	for _, l := range logins {
		if _, err := acc.Create(context.Background(), accounts.Create{Login: l, Password: "pw"}); err != nil {
			t.Fatal(err)
		}
	}
	lg := login.New(grp, sys, login.Settings{CookieLifetime: 365 * 24 * time.Hour, PreAuthLifetime: time.Minute,
		PreAuthMaxPending: 10}, clk.now, nil)
	lg.SetSessionHook(SessionHook)
	a, err := New(Deps{Sys: sys, Login: lg, Decider: bundled.Plugin(), Now: clk.now, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return &areaFixture{t: t, clk: clk, area: a, login: lg, sys: sys, grp: grp, accounts: acc}
}

func (f *areaFixture) logIn(name string) *login.SessionRecord {
	f.t.Helper()
	ctx := context.Background()
	cl, err := f.grp.NewClient(name, "pw", rand.Reader)
	if err != nil {
		f.t.Fatal(err)
	}
	pre, err := f.login.PreAuth(ctx, name, cl.AHex(), "127.0.0.1", "MAC|Linux|CPU|GPU|16GB")
	if err != nil {
		f.t.Fatal(err)
	}
	m1, err := cl.Proof(pre.Salt, pre.Salt2, pre.B)
	if err != nil {
		f.t.Fatal(err)
	}
	rec, err := f.login.SRPAuth(ctx, name, m1, "127.0.0.1", "hwid")
	if err != nil {
		f.t.Fatal(err)
	}
	return rec
}

// serve runs the area's route for path, as the server would.
func (f *areaFixture) serve(path string, form url.Values) *wire.Array {
	f.t.Helper()
	for _, r := range f.area.Routes() {
		if r.Path == path {
			resp := r.Handler(context.Background(), request(f.t, path, form.Encode()))
			v, err := wire.Unmarshal(resp.Body)
			a, ok := v.(*wire.Array)
			if err != nil || !ok {
				f.t.Fatalf("%s: %v in %q", path, err, resp.Body)
			}
			return a
		}
	}
	f.t.Fatalf("no route %s", path)
	return nil
}

func (f *areaFixture) report(rec *login.SessionRecord, who, reason string) int64 {
	f.t.Helper()
	a := f.serve(PathReport, url.Values{"reporter_id": {rec.AccountID}, "cookie": {rec.Cookie},
		"reportee_name": {who}, "reason_type": {reason}, "report_description": {"x"}})
	n, _ := a.Int("report_success")
	return n
}

func (f *areaFixture) info(rec *login.SessionRecord) *wire.Array {
	f.t.Helper()
	return f.serve(PathReportInfo, url.Values{"account_id": {rec.AccountID}, "cookie": {rec.Cookie}})
}

// TestSuspensionExpires: a suspension shows in the session record and the
// reporting status until its end date, then ends by itself with no write:
// the next login has susp_id 0 and the status is normal. Time is the
// area's and the login service's injected clock.
func TestSuspensionExpires(t *testing.T) {
	f := newAreaFixture(t, "mod", "bad")
	mod := f.logIn("mod")
	if got := f.report(mod, "bad", "6"); got != int64(ReportAccepted) {
		t.Fatalf("report: report_success %d", got)
	}
	id, _ := ParseReportID(mod.AccountID + "-1")
	if _, _, err := Resolve(context.Background(), f.area.d.Sys, ResolveArgs{ID: id, Action: bundled.ActionSuspend, Days: 2, Note: "afk"}, "mod", f.clk.now()); err != nil {
		t.Fatal(err)
	}
	wantEnd := f.clk.now().Add(48 * time.Hour).Format(EndDateLayout)

	f.clk.add(47 * time.Hour)
	bad := f.logIn("bad")
	if bad.SuspID != "1" {
		t.Errorf("during the suspension: susp_id %q, want 1", bad.SuspID)
	}
	a := f.info(bad)
	if st, _ := a.Int("status"); st != 2 || field(a, "endDate") != wantEnd || !boolField(a, "forcePopup") {
		t.Errorf("during the suspension: %v (want status 2, endDate %s, popup)", a, wantEnd)
	}

	f.clk.add(time.Hour)
	bad = f.logIn("bad")
	if bad.SuspID != "0" {
		t.Errorf("after the end date: susp_id %q, want 0", bad.SuspID)
	}
	a = f.info(bad)
	if st, _ := a.Int("status"); st != 0 || field(a, "endDate") != "" || boolField(a, "forcePopup") {
		t.Errorf("after the end date: %v (want normal)", a)
	}
	// The report keeps its verdict.
	r, err := Load(f.area.d.Sys.DB(), id)
	if err != nil || r.Status() != bundled.StatusSuspended {
		t.Errorf("report after expiry: %v, %v", r, err)
	}
	// The SysInfo of the last login is what a new report keeps.
	if got := f.report(bad, "mod", "1"); got != int64(ReportAccepted) {
		t.Fatalf("bad's report: %d", got)
	}
	r, err = Load(f.area.d.Sys.DB(), ReportID{Reporter: r.Reportee.ID, Seq: 1})
	if err != nil || r.SysInfo != "pre_auth=MAC|Linux|CPU|GPU|16GB srpAuth=hwid" {
		t.Errorf("stored SysInfo = %q, %v", r.SysInfo, err)
	}
}

// TestLimitWindowRolls: the per-reportee limit counts the last 24 hours,
// read back from the reporter's stored reports.
func TestLimitWindowRolls(t *testing.T) {
	f := newAreaFixture(t, "rep", "bad")
	rep := f.logIn("rep")
	for i, want := range []ReportSuccess{ReportAccepted, ReportAccepted, ReportFailed} {
		if got := f.report(rep, "bad", "1"); got != int64(want) {
			t.Fatalf("report %d: %d, want %d", i, got, want)
		}
		f.clk.add(time.Hour)
	}
	f.clk.add(21 * time.Hour) // the first report is now 24 h old: out of the window; the second is in
	if got := f.report(rep, "bad", "1"); got != int64(ReportAccepted) {
		t.Errorf("after the window: %d, want accepted", got)
	}
	if got := f.report(rep, "bad", "1"); got != int64(ReportFailed) {
		t.Errorf("second after the window: %d, want refused", got)
	}
	rs, err := List(f.area.d.Sys.DB(), ListFilter{})
	if err != nil || len(rs) != 3 {
		t.Errorf("stored %d reports (%v), want 3", len(rs), err)
	}
}

// TestNewRequiresDeps: the area refuses to start without its parts.
func TestNewRequiresDeps(t *testing.T) {
	f := newAreaFixture(t)
	d := f.area.d
	for name, mut := range map[string]func(*Deps){
		"no system":  func(d *Deps) { d.Sys = nil },
		"no login":   func(d *Deps) { d.Login = nil },
		"no decider": func(d *Deps) { d.Decider = nil },
	} {
		dd := d
		mut(&dd)
		if _, err := New(dd); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
	if n := len(f.area.Routes()); n != 5 {
		t.Errorf("%d routes, want 5", n)
	}
	for _, r := range f.area.Routes() {
		if r.Path == PathUnusedRap {
			t.Errorf("%s is served", PathUnusedRap)
		}
		if r.Fail == nil {
			t.Errorf("%s has no failure reply", r.Path)
		}
	}
}

func field(a *wire.Array, key string) string   { s, _ := a.String(key); return s }
func boolField(a *wire.Array, key string) bool { b, _ := a.Bool(key); return b }

// TestPluginDecisionChecked: a decision that breaks the table, or a
// plugin error, fails the report and stores nothing; the plugin's state is
// stored with an accepted report, in its commit.
func TestPluginDecisionChecked(t *testing.T) {
	f := newAreaFixture(t, "rep", "bad")
	rep := f.logIn("rep")
	var answer func(c sdk.Call[reportsapi.Facts]) (sdk.Result[reportsapi.Decision], error)
	d := f.area.d
	d.Decider = sdk.Mock(reportsapi.Assess, func(_ context.Context, c sdk.Call[reportsapi.Facts]) (sdk.Result[reportsapi.Decision], error) {
		return answer(c)
	})
	a, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	f.area = a
	for name, fn := range map[string]func(sdk.Call[reportsapi.Facts]) (sdk.Result[reportsapi.Decision], error){
		"accepted without priority": func(sdk.Call[reportsapi.Facts]) (sdk.Result[reportsapi.Decision], error) {
			return sdk.Result[reportsapi.Decision]{Decision: reportsapi.Decision{Accept: true}}, nil
		},
		"priority over the cap": func(sdk.Call[reportsapi.Facts]) (sdk.Result[reportsapi.Decision], error) {
			return sdk.Result[reportsapi.Decision]{Decision: reportsapi.Decision{Accept: true, Priority: 11}}, nil
		},
		"unknown refusal": func(sdk.Call[reportsapi.Facts]) (sdk.Result[reportsapi.Decision], error) {
			return sdk.Result[reportsapi.Decision]{Decision: reportsapi.Decision{Refusal: 77}}, nil
		},
		"plugin unavailable": func(sdk.Call[reportsapi.Facts]) (sdk.Result[reportsapi.Decision], error) {
			return sdk.Result[reportsapi.Decision]{}, sdk.ErrUnavailable
		},
	} {
		answer = fn
		if got := f.report(rep, "bad", "1"); got != int64(ReportFailed) {
			t.Errorf("%s: report_success %d, want failed", name, got)
		}
	}
	if rs, err := List(d.Sys.DB(), ListFilter{}); err != nil || len(rs) != 0 {
		t.Fatalf("stored %d reports (%v) from bad decisions", len(rs), err)
	}
	answer = func(c sdk.Call[reportsapi.Facts]) (sdk.Result[reportsapi.Decision], error) {
		return sdk.Result[reportsapi.Decision]{Decision: reportsapi.Decision{Accept: true, Priority: 3}, State: append(c.State, 'x')}, nil
	}
	for i := 0; i < 2; i++ {
		if got := f.report(rep, "bad", "1"); got != int64(ReportAccepted) {
			t.Fatalf("report %d: %d", i, got)
		}
	}
	id, _ := ParseReportID(rep.AccountID + "-2")
	r, err := Load(d.Sys.DB(), id)
	if err != nil || r.Priority != 3 {
		t.Fatalf("report 2: %+v, %v", r, err)
	}
	if st, err := d.Sys.DB().PluginState(id.Reporter, areaName); err != nil || string(st) != "xx" {
		t.Errorf("plugin state %q, %v; want xx", st, err)
	}
}

// A report from an account younger than the limits' NewAccountAge gets the
// lowest priority, whatever the count of other reporters, and does not
// count as another reporter for the priority of others' reports (issue 22,
// item 6: 20 fresh accounts of one address filed 360 top-priority
// reports); the account's age is its creation time on the host's clock,
// passed to the plugin in the facts.
func TestNewAccountReportsWeighLess(t *testing.T) {
	week := 7 * 24 * time.Hour
	f := newAreaFixtureWith(t, Config{Limits: reportsapi.Limits{NewAccountAge: week}}, "bad", "old1", "old2", "old3")
	f.clk.add(week + time.Hour)
	if _, err := f.accounts.Create(context.Background(), accounts.Create{Login: "newbie", Password: "pw"}); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"old1", "old2", "newbie", "old3"} {
		if got := f.report(f.logIn(who), "bad", "1"); got != int64(ReportAccepted) {
			t.Fatalf("%s: report_success %d", who, got)
		}
	}
	rs, err := List(f.area.d.Sys.DB(), ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, r := range rs {
		got[r.Reporter.Nickname] = r.Priority
	}
	// newbie would have had 3 (two other reporters before it); old3 counts
	// old1 and old2 but not newbie among the other reporters.
	if want := map[string]int{"old1": 1, "old2": 2, "newbie": 1, "old3": 3}; !maps.Equal(got, want) {
		t.Errorf("priorities %v, want %v", got, want)
	}
}
