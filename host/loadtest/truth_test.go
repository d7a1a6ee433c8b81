package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/client"
)

// fakeGame answers the few game paths these tests drive: the no-op's 404
// and the test area's list (testList), and counts requests.
type fakeGame struct {
	requests atomic.Int64
}

// testList is the path of the test area's read (testAreaOps).
const testList = "/loadtest/test/list"

func (f *fakeGame) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	switch r.URL.Path {
	case testList:
		io.WriteString(w, `a:1:{s:7:"success";b:1;}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `a:1:{s:5:"error";s:9:"not found";}`)
	}
}

// fakeEnv returns an env against the given servers and n logged-in accounts.
func fakeEnv(t *testing.T, n int, servers ...*httptest.Server) (*Env, []*Account, *transport) {
	t.Helper()
	var targets []*url.URL
	for _, s := range servers {
		u, _ := url.Parse(s.URL)
		targets = append(targets, u)
	}
	c, tr := newClient(targets, n)
	t.Cleanup(c.HTTP.CloseIdleConnections)
	e := &Env{c: c, run: "abc"}
	var accts []*Account
	for i := range n {
		login := "ltabc" + strconv.Itoa(i)
		e.logins = append(e.logins, login)
		accts = append(accts, &Account{login: login, id: strconv.Itoa(i + 1), index: i, known: true,
			sess: &client.Session{Login: login, AccountID: strconv.Itoa(i + 1), Cookie: testCookie}})
	}
	return e, accts, tr
}

func poolOf(accts []*Account) chan *Account {
	p := make(chan *Account, len(accts))
	for _, a := range accts {
		p <- a
	}
	return p
}

// The test area: "testbuy" buys (without a request) until the account's
// budget (its testBought) is spent, then lists instead, counted as
// "testbuy>testlist"; "testlist" reads testList. Both go through the
// registration third-party areas use.
func init() {
	RegisterArea(Area{Name: "testarea", Operations: []Operation{
		{Name: "testbuy", Requests: 1, Do: testBuy, Doc: "test: buys, else lists",
			Fallback: &Fallback{Row: "testbuy>testlist", As: "testlist", Why: "nothing left to buy: listed instead"}},
		{Name: "testlist", Requests: 1, Reads: true, Do: testListOp, Doc: "test: lists"},
	}})
}

// testBought is the test area's state of an account.
type testBought struct{ n, budget int }

func testBuy(ctx context.Context, e *Env, a *Account, rng *rand.Rand) error {
	b := AccountState(a, "testarea", func() *testBought { return &testBought{} })
	if b.n >= b.budget {
		return e.Fallback(ctx, a, rng)
	}
	b.n++
	return nil
}

func testListOp(ctx context.Context, e *Env, a *Account, _ *rand.Rand) error {
	arr, err := e.Post(ctx, testList, url.Values{"cookie": {a.Cookie()}}, 200)
	if err != nil {
		return err
	}
	if ok, _ := arr.Bool("success"); !ok {
		return Fail("refused:list", "success false")
	}
	return nil
}

// TestFallbacksCountedApart: an operation that cannot do its own work any
// more does its fallback's (here, with nothing left to buy, the list); it is
// counted in its own row, not as the operation, and the row is explained.
func TestFallbacksCountedApart(t *testing.T) {
	srv := httptest.NewServer(&fakeGame{})
	t.Cleanup(srv.Close)
	e, accts, _ := fakeEnv(t, 2, srv)
	for _, a := range accts {
		AccountState(a, "testarea", func() *testBought { return &testBought{} }).budget = 3
	}
	rec := newRecorder(nil, false)
	// One client: the accounts take turns (the pool is a queue), 10
	// operations each.
	o := Options{Concurrency: 1}
	_, stopped := drive(context.Background(), o, e, poolOf(accts), rec, Mix{"testbuy": 1}, 20, time.Minute)
	rec.stop()
	var rep Report
	rep.fill(rec)
	if stopped != stoppedRequests {
		t.Errorf("stopped %q, want %q", stopped, stoppedRequests)
	}
	// Each account's 3 buys in the operation's row, the 14 others in the
	// fallback's.
	if buy := rep.Op("testbuy"); buy == nil || buy.OK != 6 || buy.Errors != 0 {
		t.Errorf("testbuy %+v, want 6 ok: fallbacks counted as what they did not do", buy)
	}
	listed := rep.Op("testbuy>testlist")
	if listed == nil || listed.OK != 14 || listed.Errors != 0 {
		t.Fatalf("fallback row %+v; want 14 ok", listed)
	}
	if listed.FallbackOf != "testbuy" || listed.Requests != 1 {
		t.Errorf("fallback row names %q, %d requests", listed.FallbackOf, listed.Requests)
	}
	var b strings.Builder
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "testbuy>testlist: a testbuy that ran as testlist (nothing left to buy") {
		t.Errorf("text report does not explain the fallback row:\n%s", b.String())
	}
}

// TestRegisterAreaRefusesMistakes: a taken name, an incomplete operation
// and a fallback to an unknown operation are programming errors, refused
// at registration.
func TestRegisterAreaRefusesMistakes(t *testing.T) {
	do := func(context.Context, *Env, *Account, *rand.Rand) error { return nil }
	for name, ar := range map[string]Area{
		"area taken":         {Name: "testarea", Operations: []Operation{{Name: "testother", Requests: 1, Do: do}}},
		"operation taken":    {Name: "testother", Operations: []Operation{{Name: "noop", Requests: 1, Do: do}}},
		"no Do":              {Name: "testother", Operations: []Operation{{Name: "testother", Requests: 1}}},
		"no requests":        {Name: "testother", Operations: []Operation{{Name: "testother", Do: do}}},
		"no operations":      {Name: "testother"},
		"unknown fallback":   {Name: "testother", Operations: []Operation{{Name: "testother", Requests: 1, Do: do, Fallback: &Fallback{Row: "testother>x", As: "x"}}}},
		"fallback row taken": {Name: "testother", Operations: []Operation{{Name: "testother", Requests: 1, Do: do, Fallback: &Fallback{Row: "testbuy>testlist", As: "noop"}}}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered", name)
				}
			}()
			RegisterArea(ar)
		}()
		if _, ok := operations["testother"]; ok {
			t.Fatalf("%s: the operation was added before the registration was refused", name)
		}
	}
}

// TestStopReason: the report says whether the requests budget, the
// duration or an interruption ended the run.
func TestStopReason(t *testing.T) {
	srv := httptest.NewServer(&fakeGame{})
	t.Cleanup(srv.Close)
	e, accts, _ := fakeEnv(t, 1, srv)
	o := Options{Concurrency: 1}
	run := func(ctx context.Context, budget int, d time.Duration) string {
		rec := newRecorder(nil, false)
		defer rec.stop()
		_, stopped := drive(ctx, o, e, poolOf(accts), rec, Mix{"noop": 1}, budget, d)
		return stopped
	}
	if got := run(context.Background(), 3, time.Hour); got != stoppedRequests {
		t.Errorf("budget of 3: stopped %q", got)
	}
	// A nanosecond is over before the first of a billion operations.
	if got := run(context.Background(), 1e9, time.Nanosecond); got != stoppedDuration {
		t.Errorf("duration: stopped %q", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := run(ctx, 1e9, time.Hour); got != stoppedInterrupted {
		t.Errorf("interrupted: stopped %q", got)
	}
	rep := &Report{Stopped: stoppedDuration, Accounts: 1}
	var b strings.Builder
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "the run stopped: its --duration was over before its --requests operations were done") {
		t.Errorf("text report:\n%s", b.String())
	}
}

// TestProgressLinesWhenNotATerminal: into a log or a pipe, progress is one
// whole line per tick (no carriage return, no escape), and nothing is
// erased at the end.
func TestProgressLinesWhenNotATerminal(t *testing.T) {
	var buf syncBuffer
	ticks := make(chan time.Time)
	rec := newRecorderTicks(&buf, false, ticks, nil)
	rec.record("noop", time.Millisecond, 0, nil)
	ticks <- rec.start.Add(5 * time.Second)
	// The tick was received, not yet written: wait for its line (a minute
	// at most) before the next operation, which it must not count.
	for deadline := time.Now().Add(time.Minute); !strings.Contains(buf.String(), "\n"); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no progress line after a tick")
		}
	}
	rec.record("noop", time.Millisecond, 0, nil)
	ticks <- rec.start.Add(10 * time.Second)
	rec.stop()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 || strings.ContainsAny(buf.String(), "\r\033") {
		t.Fatalf("progress %q, want 2 plain lines", buf.String())
	}
	if !strings.Contains(lines[0], "5s  1 ok") || !strings.Contains(lines[1], "10s  2 ok") {
		t.Errorf("progress lines %q", lines)
	}
	// On a terminal the line is rewritten in place.
	var tty syncBuffer
	ticks = make(chan time.Time)
	rec = newRecorderTicks(&tty, true, ticks, nil)
	ticks <- rec.start.Add(time.Second)
	rec.stop()
	if !strings.HasPrefix(tty.String(), "\r\033[K") || strings.Contains(tty.String(), "\n") {
		t.Errorf("terminal progress %q", tty.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// staleServer is a keep-alive HTTP/1.1 server on loopback that answers the
// first request of each connection and then, on closeSecond connections,
// reads the second request and closes the connection without a reply: to
// the client it is a server closing an idle connection as the request went
// out on it.
type staleServer struct {
	ln          net.Listener
	closeSecond bool
	closeFirst  bool // close the very first connection's first request instead
	mu          sync.Mutex
	answered    int
	dropped     int
	conns       int
}

func newStaleServer(t *testing.T) *staleServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &staleServer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go s.serve()
	return s
}

func (s *staleServer) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns++
		n := s.conns
		s.mu.Unlock()
		go s.handle(c, n)
	}
}

func (s *staleServer) handle(c net.Conn, connNo int) {
	defer c.Close()
	br := bufio.NewReader(c)
	for i := 1; ; i++ {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		s.mu.Lock()
		drop := (s.closeFirst && connNo == 1 && i == 1) || (s.closeSecond && connNo == 1 && i == 2)
		if drop {
			s.dropped++
		} else {
			s.answered++
		}
		s.mu.Unlock()
		if drop {
			return
		}
		body := `a:1:{s:5:"error";s:9:"not found";}`
		io.WriteString(c, "HTTP/1.1 404 Not Found\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
	}
}

func (s *staleServer) counts() (answered, dropped, conns int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answered, s.dropped, s.conns
}

// TestRetryUnsentOnStaleConnection: a request that went out on a reused
// idle keep-alive connection which the server closed without a reply is
// sent again on a fresh connection, succeeds, and is counted as retried,
// not as an error.
func TestRetryUnsentOnStaleConnection(t *testing.T) {
	s := newStaleServer(t)
	s.closeSecond = true
	u, _ := url.Parse("http://" + s.ln.Addr().String())
	e, accts, _ := fakeEnv(t, 1, &httptest.Server{URL: u.String()})
	rec := newRecorder(nil, false)
	_, stopped := drive(context.Background(), Options{Concurrency: 1}, e, poolOf(accts), rec, Mix{"noop": 1}, 2, time.Minute)
	rec.stop()
	var rep Report
	rep.fill(rec)
	op := rep.Op("noop")
	if stopped != stoppedRequests || op == nil || op.OK != 2 || op.Errors != 0 || op.Retried != 1 {
		t.Fatalf("stopped %q, noop %+v; want 2 ok, 0 errors, 1 retried", stopped, op)
	}
	if answered, dropped, conns := s.counts(); answered != 2 || dropped != 1 || conns != 2 {
		t.Errorf("server answered %d, dropped %d, on %d connections; want 2, 1, 2", answered, dropped, conns)
	}
}

// TestNoRetryOnFreshConnection: a fresh connection closed without a reply
// may have carried a request the server applied: it is an error, not sent
// again.
func TestNoRetryOnFreshConnection(t *testing.T) {
	s := newStaleServer(t)
	s.closeFirst = true
	e, accts, _ := fakeEnv(t, 1, &httptest.Server{URL: "http://" + s.ln.Addr().String()})
	var retried atomic.Int64
	err := opNoop(withRetryCounter(context.Background(), &retried), e, accts[0], nil)
	if err == nil || kindOf(err) != "transport" || retried.Load() != 0 {
		t.Fatalf("err %v (kind %s), %d retried; want a transport error, none retried", err, kindOf(err), retried.Load())
	}
	if answered, dropped, _ := s.counts(); answered != 0 || dropped != 1 {
		t.Errorf("server answered %d, dropped %d; want 0, 1", answered, dropped)
	}
}

// TestTargetsSpread: with several targets each request goes to one of them
// at random, and the report counts them by target.
func TestTargetsSpread(t *testing.T) {
	var a, b fakeGame
	sa, sb := httptest.NewServer(&a), httptest.NewServer(&b)
	t.Cleanup(sa.Close)
	t.Cleanup(sb.Close)
	e, accts, tr := fakeEnv(t, 4, sa, sb)
	rec := newRecorder(nil, false)
	drive(context.Background(), Options{Concurrency: 4}, e, poolOf(accts), rec, Mix{"noop": 1}, 200, time.Minute)
	rec.stop()
	// 200 fair coin flips all on one side: probability 2^-199.
	if a.requests.Load() == 0 || b.requests.Load() == 0 || a.requests.Load()+b.requests.Load() != 200 {
		t.Errorf("requests %d and %d, want 200 spread over both", a.requests.Load(), b.requests.Load())
	}
	if tr.sent[0].Load() != a.requests.Load() || tr.sent[1].Load() != b.requests.Load() {
		t.Errorf("counted %d and %d, servers saw %d and %d", tr.sent[0].Load(), tr.sent[1].Load(), a.requests.Load(), b.requests.Load())
	}
	for _, bad := range []string{"", "127.0.0.1:8080", "ftp://x", "http://h/path", "http://h/?q=1"} {
		if _, err := parseTargets([]string{"http://127.0.0.1:1", bad}); !errors.Is(err, ErrUsage) {
			t.Errorf("target %q: %v, want a usage error", bad, err)
		}
	}
	if _, err := parseTargets(nil); !errors.Is(err, ErrUsage) {
		t.Errorf("no target: %v", err)
	}
}

// TestParseStat reads the CPU fields after a command name holding spaces
// and parentheses.
func TestParseStat(t *testing.T) {
	line := "4242 (hon (master) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 150 25 7 3 20 0 12 0 100 1000000 2000 18446744073709551615\n"
	st, err := parseStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if st != (procStat{utime: 150, stime: 25, cutime: 7, cstime: 3}) {
		t.Errorf("parsed %+v", st)
	}
	if _, err := parseStat([]byte("4242 (x) S 1 2")); err == nil {
		t.Error("short line parsed")
	}
}

// TestProcessTreeCPU sums the server, its reaped children and its live
// descendants, from a /proc tree written for the test.
func TestProcessTreeCPU(t *testing.T) {
	proc := t.TempDir()
	write := func(pid int, utime, stime, cutime, cstime int, tasks map[int][]int) {
		dir := filepath.Join(proc, strconv.Itoa(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		stat := strconv.Itoa(pid) + " (p) S 1 1 1 0 -1 0 0 0 0 0 " + strconv.Itoa(utime) + " " + strconv.Itoa(stime) + " " +
			strconv.Itoa(cutime) + " " + strconv.Itoa(cstime) + " 20 0 1 0\n"
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
		for tid, kids := range tasks {
			td := filepath.Join(dir, "task", strconv.Itoa(tid))
			os.MkdirAll(td, 0o755)
			var s []string
			for _, k := range kids {
				s = append(s, strconv.Itoa(k))
			}
			os.WriteFile(filepath.Join(td, "children"), []byte(strings.Join(s, " ")+" "), 0o644)
		}
	}
	// Server 10 with two threads, each the parent of a plugin; plugin 12
	// has a child 13; 14 is listed but gone.
	write(10, 100, 50, 7, 3, map[int][]int{10: {11}, 15: {12, 14}})
	write(11, 20, 5, 0, 0, nil)
	write(12, 30, 10, 1, 1, map[int][]int{12: {13}})
	write(13, 4, 1, 0, 0, nil)
	got, err := processTreeCPU(proc, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Duration(100+50+7+3+20+5+30+10+1+1+4+1) * clockTick; got != want {
		t.Errorf("CPU %s, want %s", got, want)
	}
	if _, err := processTreeCPU(proc, 99); !errors.Is(err, errNoProc) {
		t.Errorf("missing process: %v", err)
	}
}

// TestHistogramsShareOneAxis: every operation's histogram is drawn on the
// same latency edges, so a bar at one place means the same latency in each.
func TestHistogramsShareOneAxis(t *testing.T) {
	fast := []Bucket{{UpTo: 100 * time.Microsecond, Count: 10}, {UpTo: 200 * time.Microsecond, Count: 30}}
	slow := []Bucket{{UpTo: 200 * time.Microsecond, Count: 5}, {UpTo: 2 * time.Millisecond, Count: 5}}
	ax := newHistAxis([]OpReport{{Name: "fast", Buckets: fast}, {Name: "slow", Buckets: slow}})
	if len(ax.edges) != 3 || ax.index[200*time.Microsecond] != 1 || ax.maxShare != 0.75 {
		t.Fatalf("axis %+v", ax)
	}
	// The 200 µs bar sits at the same x in both.
	x := `x="` + strconv.FormatFloat(pad+float64(svgW-2*pad)/3, 'f', 1, 64) + `"`
	for _, bs := range [][]Bucket{fast, slow} {
		if svg := ax.svg(bs); !strings.Contains(svg, x) {
			t.Errorf("no bar at %s in %s", x, svg)
		}
	}
}

// TestServerSummary states means, not counter dumps.
func TestServerSummary(t *testing.T) {
	s := &ServerCounters{Delta: map[string]float64{
		"honmaster_storage_commit_duration_seconds_sum": 0.5, "honmaster_storage_commit_duration_seconds_count": 1000,
		"honmaster_storage_commit_records_sum": 3000, "honmaster_storage_commit_records_count": 1000,
		`honmaster_plugin_call_duration_seconds_sum{area="plinko",method="Decide"}`:   0.2,
		`honmaster_plugin_call_duration_seconds_count{area="plinko",method="Decide"}`: 400,
	}, After: map[string]float64{"process_resident_memory_bytes": 64 << 20}}
	got := strings.Join(s.Summary(), "\n")
	for _, want := range []string{"commits: 1000, mean 500µs, 3.0 records each", `plugin calls {area="plinko",method="Decide"}: 400, mean 500µs`, "resident memory at the end: 64 MiB"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	var b bytes.Buffer
	if err := (&Report{Server: s}).WriteHTML(&b); err != nil || !strings.Contains(b.String(), "mean 500µs") || strings.Contains(b.String(), "_sum") {
		t.Errorf("html: %v\n%s", err, b.String())
	}
}

// TestProcessTreeCPUWithAChildReapedMeanwhile: a plugin that exits and is
// reaped while the tree is read moves its time from the live children to
// the server's cutime. Read once, the sample missed it (the server's stat
// read before the reaping, the plugin's after it was gone): that phase's
// CPU came out short, the next one's long by as much (or negative). The
// tree is read again until the server's cutime held still. (From a review
// of the load tester; short before.)
func TestProcessTreeCPUWithAChildReapedMeanwhile(t *testing.T) {
	proc := t.TempDir()
	for _, pid := range []int{10, 11} {
		td := filepath.Join(proc, strconv.Itoa(pid), "task", strconv.Itoa(pid))
		if err := os.MkdirAll(td, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(proc, "10", "task", "10", "children"), []byte("11 "), 0o644)
	// Server 10 (100 ticks of its own) and plugin 11 (40): 11 is reaped
	// just after the server's first stat was read.
	reaped := false
	old := readStat
	readStat = func(_ string, pid int) (procStat, error) {
		switch {
		case pid == 10 && !reaped:
			reaped = true // the next read of the plugin finds it gone
			return procStat{utime: 100}, nil
		case pid == 10:
			return procStat{utime: 100, cutime: 40}, nil
		case pid == 11 && !reaped:
			return procStat{utime: 40}, nil
		}
		return procStat{}, os.ErrNotExist
	}
	t.Cleanup(func() { readStat = old })
	got, err := processTreeCPU(proc, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := 140 * clockTick; got != want {
		t.Errorf("CPU %s with the plugin reaped meanwhile, want %s (its time counted once)", got, want)
	}
}
