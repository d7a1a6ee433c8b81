package plinko_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/plinko"
	"github.com/honmaster/masterserver/host/server"
)

// benchAccounts is how many accounts drop at once.
const benchAccounts = 256

// benchFixture is one real server shared by both drop benchmarks so that
// they run in one process, one after the other, on the same machine state:
//   - the real drop: cli.Start with the bundled plugin subprocess, the
//     actors and synced Pebble commits in an on-disk temporary directory;
//   - the ceiling: a second listener of the same host code whose route
//     authenticates and checks the currency like a drop, then answers a
//     drop-shaped reply without catalog, actor, plugin or commit
//     (plinko.Area.CeilingRoute, test-only).
type benchFixture struct {
	once     sync.Once
	err      error
	dir      string
	rt       *cli.Runtime
	ceil     *server.Server
	base     string // real server
	ceilBase string // ceiling server
	cookies  []string
	http     *http.Client
}

var bench benchFixture

func (f *benchFixture) start() error {
	f.once.Do(func() { f.err = f.setup() })
	return f.err
}

func (f *benchFixture) setup() error {
	dir, err := os.MkdirTemp("", "plinko-bench-")
	if err != nil {
		return err
	}
	f.dir = dir
	cfg := config.Default()
	cfg.Storage.DataDir = dir
	cfg.Server.Listen = "127.0.0.1:0"
	cfg.Operator.Listen = "127.0.0.1:0"
	// The clients' pool holds up to two connections per account, all from
	// one address: above the default per-address limit, which closed the
	// excess at once and failed the drops sent on them.
	cfg.Limits.MaxConnectionsPerAddress = 4 * benchAccounts
	unlimitedWrites(cfg) // thousands of drops a second from one address
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	if f.rt, err = cli.Start(ctx, cfg, log, false, io.Discard); err != nil {
		return err
	}
	app := f.rt.App
	if err := plinko.PutCatalog(ctx, app.Sys, plinko.DemoCatalog()); err != nil {
		return err
	}
	area, err := plinko.New(plinko.Deps{Sys: app.Sys, Login: app.Login, Decider: app.Plugins.Caller(plinkoapi.Area), Config: plinko.SettingsOf(cfg), Log: log})
	if err != nil {
		return err
	}
	f.ceil = server.New(server.Deps{Config: cfg, Logger: log, Login: app.Login, Accounts: app.Accounts})
	if err := f.ceil.Mount(area.CeilingRoute()); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go f.ceil.Serve(ln)
	f.base, f.ceilBase = "http://"+f.rt.Addr.String(), "http://"+ln.Addr().String()

	c := client.New(f.base)
	f.cookies = make([]string, benchAccounts)
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
			a, err := app.Accounts.Create(ctx, accounts.Create{Login: login, Password: "pw"})
			if err == nil {
				_, err = (&accounts.Grant{Tickets: 1 << 40, Gold: 1 << 40}).To(ctx, app.Sys, a.ID)
			}
			var s *client.Session
			if err == nil {
				s, err = c.Login(ctx, login, "pw")
			}
			if err != nil {
				errs <- err
				return
			}
			f.cookies[i] = s.Cookie
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

// stopBenchFixture stops the shared server, if a benchmark started it.
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

// okDrop is how a successful drop reply starts its status entry.
var okDrop = []byte(`s:11:"status_code";s:1:"1";`)

// runDrops spreads b.N drops over benchAccounts goroutines, one account
// each, and reports drops per second.
func runDrops(b *testing.B, base, path string) {
	if err := bench.start(); err != nil {
		b.Fatal(err)
	}
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for i := range benchAccounts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := "cookie=" + bench.cookies[i] + "&currency=tickets"
			for next.Add(1) <= int64(b.N) {
				resp, err := bench.http.Post(base+path, "application/x-www-form-urlencoded", strings.NewReader(body))
				if err != nil {
					failed.Add(1)
					continue
				}
				reply, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || !bytes.Contains(reply, okDrop) {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d of %d drops failed", n, b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "drops/s")
}

// BenchmarkDrop256: 256 accounts dropping concurrently through HTTP, the
// plugin subprocess, the account actors and a synced commit each.
func BenchmarkDrop256(b *testing.B) { runDrops(b, bench.baseURL(false), plinko.PathDrop) }

// BenchmarkDropCeiling256: the same load on the no-op ceiling route.
func BenchmarkDropCeiling256(b *testing.B) { runDrops(b, bench.baseURL(true), plinko.PathCeiling) }

func (f *benchFixture) baseURL(ceiling bool) string {
	if err := f.start(); err != nil {
		return ""
	}
	if ceiling {
		return f.ceilBase
	}
	return f.base
}
