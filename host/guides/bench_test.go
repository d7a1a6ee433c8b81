package guides_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/guides"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/guides/guidesapi"
)

// TestMain lets the test binary run the bundled plugins the benchmark
// server starts (it re-executes the running binary).
func TestMain(m *testing.M) { clitest.Main(m, stopBenchFixture) }

const (
	benchAccounts = 256
	benchGuides   = 1000
	benchHero     = "Hero_Parallax"
	benchGid      = 1 // the guide every vote goes to
)

// benchFixture is one real server shared by the guide benchmarks, so that
// they run in one process on the same machine state:
//   - the real functions: cli.Start with the bundled guides plugin
//     subprocess, the actors and synced Pebble commits on disk, a hero with
//     benchGuides guides;
//   - the ceiling: a second listener of the same host code whose routes
//     parse and authenticate each request like the real function, then
//     answer a reply of the real shape with nothing behind it
//     (Service.CeilingRoutes, test-only).
type benchFixture struct {
	once     sync.Once
	err      error
	dir      string
	rt       *cli.Runtime
	ceil     *server.Server
	base     string
	ceilBase string
	accounts []string // account ids
	cookies  []string
	http     *http.Client
}

var bench benchFixture

func (f *benchFixture) start() error {
	f.once.Do(func() { f.err = f.setup() })
	return f.err
}

func benchGuideSet() []guides.Guide {
	gs := make([]guides.Guide, benchGuides)
	for i := range gs {
		gs[i] = guides.Guide{Gid: guides.GuideID(i + 1), Hero: benchHero, HeroName: "Parallax",
			Name: fmt.Sprintf("Bench guide number %d with a name longer than the list shows", i), AuthorName: "bench",
			Edited: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Premium: i%100 == 0,
			Start: []string{"Item_A"}, Laning: []string{}, Core: []string{}, Luxury: []string{}, Abil: []string{},
			Up: uint32(i * 7 % 101), Down: uint32(i * 13 % 37)}
	}
	return gs
}

func (f *benchFixture) setup() error {
	dir, err := os.MkdirTemp("", "guides-bench-")
	if err != nil {
		return err
	}
	f.dir = dir
	cfg := config.Default()
	cfg.Storage.DataDir = dir
	cfg.Server.Listen = "127.0.0.1:0"
	cfg.Operator.Enabled = false // its fixed port may be taken on a shared machine
	// One address opens up to 2*benchAccounts connections (plus voters).
	cfg.Limits.MaxConnectionsPerAddress = cfg.Limits.MaxConnections
	// The voters of whileVoting all vote from this one address, far past
	// the per-address budgets of votes (refused votes failed the
	// benchmark); bench/loadtest.toml lifts them for the same reason.
	cfg.Limits.GuideVotesAddress = config.Rate{}
	cfg.Limits.GuideVotesGuideAddress = config.Rate{}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	if f.rt, err = cli.Start(ctx, cfg, log, false, io.Discard); err != nil {
		return err
	}
	app := f.rt.App
	if _, err := guides.Seed(ctx, app.Sys, benchGuideSet()); err != nil {
		return err
	}
	svc, err := guides.NewService(guides.Deps{Sys: app.Sys, Login: app.Login, Decider: app.Plugins.Caller(guidesapi.Area), Log: log})
	if err != nil {
		return err
	}
	f.ceil = server.New(server.Deps{Config: cfg, Logger: log, Login: app.Login, Accounts: app.Accounts})
	entries, err := svc.List(ctx, 0, benchHero) // the real list's text, computed once
	if err != nil {
		return err
	}
	if err := f.ceil.Mount(svc.CeilingRoutes(string(guides.FuncList), string(guides.FuncVote), guides.FormatList(entries))...); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go f.ceil.Serve(ln)
	f.base, f.ceilBase = "http://"+f.rt.Addr.String(), "http://"+ln.Addr().String()

	c := client.New(f.base)
	f.accounts, f.cookies = make([]string, benchAccounts), make([]string, benchAccounts)
	errs := make(chan error, benchAccounts)
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range benchAccounts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			login := fmt.Sprintf("bench%03d", i)
			_, err := app.Accounts.Create(ctx, accounts.Create{Login: login, Password: "pw"})
			var s *client.Session
			if err == nil {
				s, err = c.Login(ctx, login, "pw")
			}
			if err != nil {
				errs <- err
				return
			}
			f.accounts[i], f.cookies[i] = s.AccountID, s.Cookie
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	f.http = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 2 * benchAccounts, MaxConnsPerHost: 2 * benchAccounts}}
	return nil
}

func stopBenchFixture() {
	if bench.rt == nil {
		return
	}
	bench.http.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if bench.ceil != nil {
		_ = bench.ceil.Shutdown(ctx)
	}
	_ = bench.rt.Stop()
	_ = os.RemoveAll(bench.dir)
}

var okReply = []byte(`s:6:"errors";s:0:"";s:7:"success";i:1;`)

// run spreads b.N requests of f over benchAccounts goroutines, one account
// each; form adds the function's fields for the account's n-th request.
func run(b *testing.B, ceiling bool, fn guides.Func, form func(n int, v url.Values)) {
	if err := bench.start(); err != nil {
		b.Fatal(err)
	}
	base := bench.base
	if ceiling {
		base = bench.ceilBase
	}
	var next, failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	b.ResetTimer()
	cpu0, cpuOK := cpuTime()
	start := time.Now()
	for i := range benchAccounts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := url.Values{"f": {string(fn)}, "account": {bench.accounts[i]}, "cookie": {bench.cookies[i]}, "hosttime": {"1"}}
			for n := 0; next.Add(1) <= int64(b.N); n++ {
				form(n, v)
				resp, err := bench.http.Post(base+"/client_requester.php", "application/x-www-form-urlencoded", strings.NewReader(v.Encode()))
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				reply, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || !bytes.Contains(reply, okReply) {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, string(reply))
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1, _ := cpuTime()
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d of %d requests failed; first: %v", n, b.N, firstErr.Load())
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	if cpuOK {
		// Client, server and plugins: on a machine busy with other work
		// this compares a route with its ceiling better than req/s.
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	}
}

func listForm(_ int, v url.Values) { v.Set("hero", benchHero) }

// voteForm alternates each account's vote, so every vote is a change
// (moves both counts) and commits.
func voteForm(n int, v url.Values) {
	v.Set("gid", fmt.Sprint(benchGid))
	v.Set("v", fmt.Sprint(n%2))
}

// BenchmarkGuideList1000: 256 accounts listing a hero with 1,000 guides:
// HTTP, cookie check, marks read, facts for 1,000 candidates ranked by the
// plugin subprocess over gRPC, the host's check, formatting.
func BenchmarkGuideList1000(b *testing.B) { run(b, false, guides.FuncList, listForm) }

// BenchmarkGuideListCeiling: the same load on the no-op list route.
func BenchmarkGuideListCeiling(b *testing.B) { run(b, true, guides.FuncList, listForm) }

// BenchmarkGuideVote256: 256 accounts voting on one guide: the plugin's
// vote rule, a synced commit in each account's actor, the tally.
func BenchmarkGuideVote256(b *testing.B) { run(b, false, guides.FuncVote, voteForm) }

// BenchmarkGuideVoteCeiling: the same load on the no-op vote route.
func BenchmarkGuideVoteCeiling(b *testing.B) { run(b, true, guides.FuncVote, voteForm) }

// benchVoters is how many accounts keep voting during the *WhileVoting
// benchmarks.
const benchVoters = 16

// whileVoting runs list on the real server or the ceiling while
// benchVoters accounts keep changing their votes on the hero's guides
// through the real server (every vote moves the counts, so no ranking is
// current for long), and reports the votes made per second beside it.
func whileVoting(b *testing.B, ceiling bool) {
	if err := bench.start(); err != nil {
		b.Fatal(err)
	}
	stop := make(chan struct{})
	var votes, failed atomic.Int64
	var wg sync.WaitGroup
	for i := range benchVoters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := url.Values{"f": {string(guides.FuncVote)}, "account": {bench.accounts[i]}, "cookie": {bench.cookies[i]}, "hosttime": {"1"}}
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				v.Set("gid", fmt.Sprint(1+(i*37+n/2)%benchGuides))
				v.Set("v", fmt.Sprint(n%2))
				resp, err := bench.http.Post(bench.base+"/client_requester.php", "application/x-www-form-urlencoded", strings.NewReader(v.Encode()))
				if err != nil {
					failed.Add(1)
					continue
				}
				reply, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !bytes.Contains(reply, okReply) {
					failed.Add(1)
					continue
				}
				votes.Add(1)
			}
		}()
	}
	start := time.Now()
	run(b, ceiling, guides.FuncList, listForm)
	elapsed := time.Since(start)
	close(stop)
	wg.Wait()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d votes failed", n)
	}
	b.ReportMetric(float64(votes.Load())/elapsed.Seconds(), "votes/s")
}

// BenchmarkGuideListWhileVoting: BenchmarkGuideList1000 while 16 other
// requesters keep voting on the hero's guides (each vote moves the counts
// the list is ranked on; rankings are reused within guides.rank_staleness).
func BenchmarkGuideListWhileVoting(b *testing.B) { whileVoting(b, false) }

// BenchmarkGuideListCeilingWhileVoting: the no-op list route under the same
// votes, the ceiling of BenchmarkGuideListWhileVoting.
func BenchmarkGuideListCeilingWhileVoting(b *testing.B) { whileVoting(b, true) }
